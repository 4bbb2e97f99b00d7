// agentform drift -e ENV | --all-envs: the plan pipeline without prune, read as drift. Never
// writes; exit 0 when nothing drifted (ignored differences do not count), 2 when something did.
import { resolve } from 'node:path';
import { loadProject } from '../../../config/index.js';
import { type DriftReport, driftOf, hasDrift } from '../../../engine/drift.js';
import { UserError } from '../../../errors.js';
import { planSession } from '../../../pipeline/plan.js';
import { planToolSurfaceReport, toolSurfaceExitCode } from '../../../pipeline/tool-lock.js';
import { openSession, runContext } from '../../../pipeline/session.js';
import { renderDriftAllJson, renderDriftJson, renderDriftMarkdown, renderDriftText } from '../../../render/drift.js';
import { paletteFor } from '../../../render/palette.js';
import type { GlobalOptions } from '../../global-options.js';
import { useColor } from '../../terminal.js';
import type { DriftCommandOptions } from './options.js';

export const NO_DRIFT = 0;
export const DRIFT = 2;

/** One environment's drift: its plan, computed as plan computes it, but never with prune. */
async function driftOfEnvironment(
  dir: string,
  environment: string | undefined,
  checkTools: boolean,
  globals: GlobalOptions,
): Promise<{ report: DriftReport; target: string }> {
  const session = await openSession({ dir, ...(environment !== undefined ? { environment } : {}), readAhead: true }, runContext(globals));
  try {
    const run = await planSession(session, { prune: false, reportOnly: true });
    const toolSurface = checkTools ? await planToolSurfaceReport(session.client, run) : undefined;
    const report = driftOf(run.plan, {
      ...(run.credentialKey ? { ownKey: run.credentialKey } : {}),
      countUndeclaredKeys: run.desired.target.pruneApiKeys === true,
      ...(toolSurface ? { toolSurface } : {}),
    });
    return { report, target: session.targetLabel };
  } finally {
    await session.close();
  }
}

export async function runDrift(dir: string, options: DriftCommandOptions, globals: GlobalOptions): Promise<number> {
  if (options.allEnvs) return runDriftAllEnvironments(resolve(dir), options, globals);
  const { report, target } = await driftOfEnvironment(resolve(dir), options.env, options.checkTools === true, globals);
  if (options.json) process.stdout.write(`${renderDriftJson(report, target)}\n`);
  else if (options.markdown) process.stdout.write(`${renderDriftMarkdown(report, target)}\n`);
  else process.stdout.write(`${renderDriftText(report, paletteFor(useColor(globals)))}\n`);
  return exitCodeOf(report);
}

/** 2 for drift, 0 for none; 1 when a connection's tools could not be read (nothing can be said). */
function exitCodeOf(report: DriftReport): number {
  if (report.toolSurface && toolSurfaceExitCode(report.toolSurface, true) === 1) return 1;
  return hasDrift(report) ? DRIFT : NO_DRIFT;
}

async function runDriftAllEnvironments(dir: string, options: DriftCommandOptions, globals: GlobalOptions): Promise<number> {
  if (options.env) throw new UserError('--all-envs and -e/--env cannot be combined');
  const project = await loadProject(dir);
  const outcomes: Array<{ environment: string; report?: DriftReport; target?: string; error?: string }> = [];
  for (const environment of Object.keys(project.environments)) {
    try {
      const { report, target } = await driftOfEnvironment(dir, environment, options.checkTools === true, globals);
      outcomes.push({ environment, report, target });
      if (options.markdown) process.stdout.write(`${renderDriftMarkdown(report, target)}\n\n`);
      else if (!options.json) process.stdout.write(`== ${environment} (${target}) ==\n${renderDriftText(report, paletteFor(useColor(globals)))}\n\n`);
    } catch (error) {
      // An environment that fails is reported; the others are still checked.
      const message = error instanceof Error ? error.message : String(error);
      outcomes.push({ environment, error: message });
      if (!options.json) process.stdout.write(`== ${environment} ==\nError: ${message}\n\n`);
    }
  }
  if (options.json) process.stdout.write(`${renderDriftAllJson(outcomes)}\n`);
  const failed = outcomes.filter((outcome) => outcome.error !== undefined);
  if (failed.length > 0) throw new UserError(`could not check ${failed.map((outcome) => outcome.environment).join(', ')} for drift`);
  const codes = outcomes.map((outcome) => (outcome.report ? exitCodeOf(outcome.report) : NO_DRIFT));
  return codes.includes(1) ? 1 : codes.includes(DRIFT) ? DRIFT : NO_DRIFT;
}
