import { appendFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { savePlan } from '../../apply/saved-plan.js';
import type { ResourceAddress } from '../../model/resources.js';
import { renderPlanJson } from '../../render/json.js';
import { renderPlanMarkdown } from '../../render/markdown.js';
import { renderPlanText } from '../../render/text.js';
import { renderFindingAnnotations, renderSafetyText } from '../../render/safety.js';
import { reviewPlan, wantsAnnotations } from '../../safety/index.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import type { GlobalOptions } from '../global-options.js';
import { useColor } from '../output.js';
import { paletteFor } from '../../render/palette.js';
import { openSession, planSession } from '../plan-pipeline.js';
import type { PlanCommandOptions } from './plan.js';
import { UserError } from '../../errors.js';
import { planExitCode, planToolSurfaceReport, toolSurfaceText } from './lock/gate.js';

export async function runPlan(dir: string, options: PlanCommandOptions, globals: GlobalOptions): Promise<void> {
  if (options.allEnvs && options.checkTools) throw new UserError('--check-tools checks one environment: pass -e instead of --all-envs');
  if (options.allEnvs) {
    const { runPlanAllEnvironments } = await import('./plan-all-envs.js');
    await runPlanAllEnvironments(dir, options, globals);
    return;
  }
  const session = await openSession(
    {
      dir: resolve(dir),
      ...(options.env ? { environment: options.env } : {}),
      ...(options.prune ? { prune: true } : {}),
      ...(options.allowMassDelete ? { allowMassDelete: true } : {}),
      ...(options.target ? { targets: options.target as ResourceAddress[] } : {}),
    },
    globals,
    process.env,
    { prefetchState: true },
  );
  try {
    const run = await planSession(session, { dir, ...(options.target ? { targets: options.target as ResourceAddress[] } : {}), ...(options.prune ? { prune: true } : {}), ...(options.allowMassDelete ? { allowMassDelete: true } : {}) });
    const safety = await reviewPlan(run);
    if (session.isLocal && !options.json) process.stderr.write(`Target: ${session.targetLabel}\n`);
    const toolSurface = options.checkTools ? await planToolSurfaceReport(session.client, run) : undefined;
    if (options.json) {
      process.stdout.write(`${renderPlanJson(run.plan, { target: session.targetLabel, safety, ...(toolSurface ? { toolSurface } : {}) })}\n`);
    } else if (options.markdown) {
      process.stdout.write(`${renderPlanMarkdown(run.plan, { target: session.targetLabel, graph: true, safety })}${toolSurfaceText(toolSurface, 'markdown')}\n`);
    } else {
      process.stdout.write(`${renderPlanText(run.plan, { color: useColor(globals) })}\n\n${renderSafetyText(safety, paletteFor(useColor(globals)))}${toolSurfaceText(toolSurface, useColor(globals))}\n`);
    }
    if (wantsAnnotations(process.env)) for (const line of renderFindingAnnotations(safety)) process.stderr.write(`${line}\n`);
    if (process.env.GITHUB_STEP_SUMMARY) {
      await appendFile(process.env.GITHUB_STEP_SUMMARY, `${renderPlanMarkdown(run.plan, { target: session.targetLabel, graph: true, safety })}\n`);
    }
    if (options.out) {
      await writeFileAtomic(resolve(options.out), `${JSON.stringify(savePlan(run.plan, run.desired, run.actual, relative(process.cwd(), run.desired.projectDir) || '.'), null, 2)}\n`, { mode: 0o600 });
      process.stderr.write(`Saved the plan to ${options.out}; apply it with: agentform apply ${options.out}\n`);
    }
    const exitCode = planExitCode(run.plan, toolSurface, options.detailedExitcode === true);
    if (exitCode !== 0) process.exitCode = exitCode;
  } finally {
    await session.close();
  }
}
