// The apply command after its session is open: plan, review, preflight, lock gate, confirm, write,
// report. What reaches the terminal, and when, is the apply console's (console.ts).
// A module of its own so that run.ts can load it while the session's reads are on the wire.
import { refuseUpdateLockInStrict } from '../../strict-refusals.js';
import { resolve } from 'node:path';
import { DEFAULT_MAX_REQUEST_BYTES, preflight } from '../../../apply/preflight.js';
import { staleness, type SavedPlan } from '../../../apply/saved-plan.js';
import { AbortedError, UserError } from '../../../errors.js';
import { changeCount, type DesiredResource, type Plan } from '../../../model/resources.js';
import { removeStaleTempFiles } from '../../../util/atomic-write.js';
import { tokenFileWriteProblem, type TokenFileSnapshot } from '../../../pipeline/token-files.js';
import type { GlobalOptions } from '../../global-options.js';
import { useColor } from '../../terminal.js';
import { planSession, type PlanInputs, type PlanRun } from '../../../pipeline/plan.js';
import type { Session } from '../../../pipeline/session.js';
import type { ApplyCommandOptions } from './options.js';
import { applyToolLockGate } from '../../../pipeline/tool-lock.js';
import { renderSurfaceDiff } from '../../../render/tool-surface.js';
import { refuseOnBlockingFindings, reviewPlan } from '../../../safety/index.js';
import { ApplyConsole } from './console.js';
import { startWrites, type TestedConnections } from './writes.js';
import type { ConsoleStreams } from './write-log.js';
import { type BreakGlassRequest, reviewChangeWindows } from '../../../safety/change-windows.js';
import { recordBreakGlassSummary } from '../../break-glass.js';

/** What run.ts worked out from the command line before opening the session. */
export interface ApplyRequest {
  saved: SavedPlan | undefined;
  inputs: PlanInputs;
  parallelism: number;
  maxRequestBytes: number | undefined;
  /** When the command started (monotonicMs()): the summary states the time since. */
  startedAt?: number;
  /** Where the console writes, when not to stdout and stderr. */
  streams?: ConsoleStreams;
  /** --break-glass: write even inside a change window, recorded. */
  breakGlass?: BreakGlassRequest;
  /** The clock the change windows are judged by (AGENTFORM_NOW in tests); default: the system's. */
  now?: () => Date;
}

export async function finishApply(session: Session, request: ApplyRequest, options: ApplyCommandOptions, globals: GlobalOptions): Promise<void> {
  const { saved, inputs } = request;
  if (options.updateLock === true) refuseUpdateLockInStrict(session.desired.target);
  const run = await planSession(session, saved ? savedPlanInputs(saved, inputs) : inputs);
  if (saved) refuseStalePlan(saved, run);
  // The findings in full (every rule, every resource); the capability diff is plan's to print. A
  // saved plan is judged as it was saved (not stale: it is exactly what is written), as plan judged
  // it: the fresh plan knows neither its --target nor its --base.
  refuseOnBlockingFindings(await reviewPlan(saved ? { ...run, plan: saved.plan } : run, { capabilityChanges: false }));
  const plan = saved ? saved.plan : run.plan;
  // Judged now, not when a saved plan was made: a plan made before a freeze is refused inside it.
  // A plan that writes nothing changes nothing, so no window stops it (a merge of a README during a
  // freeze passes).
  const windows = reviewChangeWindows({
    root: run.project,
    environment: run.desired.target.name,
    now: request.now?.() ?? new Date(),
    ...(request.breakGlass ? { breakGlass: request.breakGlass } : {}),
    command: 'apply',
    writes: changeCount(plan) > 0,
  });
  await removeStaleTokenTempFiles(run.desired.resources, run.desired.projectDir);

  const io = new ApplyConsole(plan, {
    json: options.json === true,
    color: useColor(globals),
    asks: !saved && options.autoApprove !== true,
    target: session.targetLabel,
    ...(request.startedAt !== undefined ? { startedAt: request.startedAt } : {}),
    ...(request.streams ? { streams: request.streams } : {}),
  });
  if (session.isLocal) io.target(session.targetLabel);
  io.windowVerdict(windows, run.desired.target.name);
  if (windows.outcome === 'break-glass') recordBreakGlassSummary('apply', run.desired.target.name, windows.record, process.env);
  io.showPlan();
  if (changeCount(plan) === 0) return;

  const toolLock = await io.beforeWrites(async () => {
    // Nothing is written that cannot be finished: every problem, before the first write.
    await refusePreflightProblems(run, plan, request.maxRequestBytes);
    // The tool servers the changed agents use must still serve what agentform.lock.yaml records.
    const gate = await applyToolLockGate(session.client, run, plan, options.updateLock === true, renderSurfaceDiff, io.say);
    await io.confirm(`\nApply these changes to ${session.targetLabel}? Only 'yes' will be accepted: `);
    return gate;
  });

  const tested: TestedConnections = new Map();
  const settings = { parallelism: request.parallelism, waitForImages: options.wait === true };
  const result = await io.write((hooks) => startWrites(run, plan, settings, hooks, tested));
  io.report(result);
  if (io.interrupted) throw new AbortedError(`Apply interrupted: ${result.notStarted.length} change(s) not started. Run apply again to finish.`, 130);
  await toolLock.finish(tested);
  if (result.failed.length > 0) {
    const notStarted = result.notStarted.length > 0 ? `, ${result.notStarted.length} not started` : '';
    throw new UserError(
      `apply finished with ${result.failed.length} failed and ${result.skipped.length} skipped change(s)${notStarted}`,
      'fix the cause and run apply again: it picks up where this run stopped',
    ).withCode('apply_failed');
  }
}

function refuseStalePlan(saved: SavedPlan, run: PlanRun): void {
  const reasons = staleness(saved, run.planned.desired, run.planned.actual);
  if (reasons.length > 0) {
    throw new UserError(`the saved plan is stale:\n  ${reasons.join('\n  ')}`, 'run `agentform plan --out` again').withCode('stale_plan');
  }
}

async function refusePreflightProblems(run: PlanRun, plan: Plan, maxRequestBytesOption: number | undefined): Promise<void> {
  const problems = preflight(plan, run.desired, run.actual, {
    maxRequestBytes: maxRequestBytesOption ?? run.desired.target.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    ...(run.credentialScopes ? { credentialScopes: run.credentialScopes } : {}),
    ...(run.credentialKey ? { credentialKey: run.credentialKey } : {}),
    tokenFileProblems: await tokenFileWriteProblems(plan, run.tokenFiles),
  });
  if (problems.length > 0) {
    throw new UserError(
      `refusing to apply: ${problems.length} problem${problems.length === 1 ? '' : 's'} found before any write (nothing was changed):\n  ${problems.join('\n  ')}`,
    ).withCode('preflight_refused');
  }
}

/** A run killed while writing a token file leaves its temporary file (a token, mode 0600): remove it. */
async function removeStaleTokenTempFiles(resources: readonly DesiredResource[], projectDir: string): Promise<void> {
  for (const resource of resources) {
    const file = resource.options?.tokenFile;
    if (typeof file === 'string') await removeStaleTempFiles(resolve(projectDir, file));
  }
}

/** For each key the plan creates or replaces: why its token file cannot be written, if it cannot. */
async function tokenFileWriteProblems(plan: Plan, files: ReadonlyMap<string, TokenFileSnapshot>): Promise<Map<string, string>> {
  const problems = new Map<string, string>();
  for (const change of plan.changes) {
    const file = change.kind === 'apiKey' && (change.action === 'create' || change.action === 'replace') ? files.get(change.name) : undefined;
    const problem = file ? await tokenFileWriteProblem(file.path) : undefined;
    if (problem) problems.set(change.name, problem);
  }
  return problems;
}

/** A saved plan is planned again as it was made: with its --exclude, and its deletes allowed. */
function savedPlanInputs(saved: SavedPlan, inputs: PlanInputs): PlanInputs {
  const excludes = saved.plan.scope?.excludes ?? [];
  return { ...inputs, prune: hasDeletes(saved), allowMassDelete: true, ...(excludes.length > 0 ? { excludes } : {}) };
}

function hasDeletes(saved: SavedPlan): boolean {
  return saved.plan.changes.some((change) => change.action === 'delete');
}
