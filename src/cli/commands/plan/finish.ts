// The plan command after its session is open: plan, review, render, save. A module of its own so
// that run.ts can load it while the session's reads are on the wire.
import * as fs from 'node:fs';
import { planFormatOf, renderPlanAs, renderPlanMarkdownSection } from '../../../render/plan-formats.js';
import { renderFindingAnnotations } from '../../../render/safety.js';
import { renderPlanComment, renderStepSummary } from '../../../render/pr-comment.js';
import { reviewPlan, wantsAnnotations } from '../../../safety/index.js';
import { ENV_PLACEHOLDER, writeSavedPlan } from './save.js';
import type { GlobalOptions } from '../../global-options.js';
import { useColor } from '../../terminal.js';
import { planSession } from '../../../pipeline/plan.js';
import type { Session } from '../../../pipeline/session.js';
import { planExitCode, planToolSurfaceReport } from '../../../pipeline/tool-lock.js';
import { planCapabilityTests } from '../../../pipeline/capability-tests.js';
import { withServedButUnlocked } from '../../../engine/strict-tools.js';
import { markdownLinkOf, planInputsOf, type PlanCommandOptions } from './options.js';
import { writeFullComment } from './markdown-full.js';
import { openChangeWindows } from '../../../safety/change-windows.js';
import { nowOf } from '../../break-glass.js';
import { policyRefusalLine, reportPolicyRefusals } from './policy-verdict.js';

export async function finishPlan(session: Session, options: PlanCommandOptions, globals: GlobalOptions): Promise<number> {
  const run = await planSession(session, planInputsOf(options));
  const safety = await reviewPlan(run);
  if (session.isLocal && !options.json) process.stderr.write(`Target: ${session.targetLabel}\n`);
  const toolSurface = options.checkTools ? await planToolSurfaceReport(session.client, run) : undefined;
  // Strict mode: name the tools served now that the lock does not record, which the derived default denies.
  if (toolSurface && run.plan.derivedToolPolicies) run.plan.derivedToolPolicies = withServedButUnlocked(run.plan.derivedToolPolicies, run.desired, toolSurface);
  const capabilityTests = await planCapabilityTests(session.project, run.desired);
  const markdownLink = markdownLinkOf(options, process.env);
  const context = {
    target: session.targetLabel,
    color: useColor(globals),
    safety,
    ...(toolSurface ? { toolSurface } : {}),
    ...(options.changesOnly ? { changesOnly: true } : {}),
    ...(capabilityTests ? { capabilityTests } : {}),
    openChangeWindows: openChangeWindows(run.project, run.desired.target.name, nowOf(process.env)),
    ...(markdownLink ? { markdownLink } : {}),
    ...(options.markdownFull ? { markdownFull: options.markdownFull } : {}),
  };
  process.stdout.write(`${renderPlanAs(planFormatOf(options), run.plan, context)}\n`);
  if (wantsAnnotations(process.env)) for (const line of renderFindingAnnotations(safety)) process.stderr.write(`${line}\n`);
  if (process.env.GITHUB_STEP_SUMMARY) {
    // The job summary takes a megabyte: the whole section, cut only past that.
    await fs.promises.appendFile(process.env.GITHUB_STEP_SUMMARY, `${renderStepSummary([renderPlanMarkdownSection(run.plan, context)])}\n`);
  }
  const refusal = policyRefusalLine(safety);
  // 'plan-{env}.json' names one environment's file here as under --all-envs.
  if (options.out) await writeSavedPlan(run, options.out.replaceAll(ENV_PLACEHOLDER, run.plan.environment), refusal !== undefined);
  // The same comment with no budget: never cut, so no pointer.
  if (options.markdownFull)
    await writeFullComment(options.markdownFull, renderPlanComment(run.plan.environment, renderPlanMarkdownSection(run.plan, context), {}, Infinity));
  // Apply would refuse this plan: 1, also under --detailed-exitcode (its 2 says "changes to apply").
  if (refusal === undefined) return planExitCode(run.plan, toolSurface, options.detailedExitcode === true);
  reportPolicyRefusals([refusal], options.json === true);
  return 1;
}
