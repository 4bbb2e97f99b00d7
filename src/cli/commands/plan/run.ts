import { resolve } from 'node:path';
import { UserError } from '../../../errors.js';
import type { GlobalOptions } from '../../global-options.js';
import { openSession, runContext } from '../../../pipeline/session.js';
import type { PlanCommandOptions } from './options.js';

export async function runPlan(dir: string, options: PlanCommandOptions, globals: GlobalOptions): Promise<number> {
  const multiple = options.allEnvs === true || options.envs !== undefined;
  if (multiple && options.checkTools) throw new UserError('--check-tools checks one environment: pass -e instead of --all-envs');
  if (options.changesOnly && (!options.json || multiple)) {
    throw new UserError('--changes-only shapes the JSON plan of one environment', 'use it with --json and -e, not --all-envs');
  }
  if (options.markdownFull !== undefined && (!options.markdown || options.json)) {
    throw new UserError(
      '--markdown-full writes the whole pull-request comment: it needs --markdown',
      'pass --markdown (and not --json) with --markdown-full FILE',
    );
  }
  // An empty name (`--markdown-full "$UNSET"` in CI) would write nothing and name no file in the cut note.
  if (options.markdownFull !== undefined && options.markdownFull.trim() === '') {
    throw new UserError('--markdown-full needs a file name', 'pass --markdown-full FILE, e.g. --markdown-full plan-full.md');
  }
  if (multiple) {
    const { runPlanAllEnvironments } = await import('./all-envs.js');
    return runPlanAllEnvironments(dir, options, globals);
  }
  const session = await openSession({ dir: resolve(dir), ...(options.env ? { environment: options.env } : {}), readAhead: true }, runContext(globals));
  try {
    // Loaded while the reads are on the wire (openSession sent them): on a small project the
    // planning, review and rendering modules were loaded before, and the run then waited for them.
    const { finishPlan } = await import('./finish.js');
    return await finishPlan(session, options, globals);
  } finally {
    await session.close();
  }
}
