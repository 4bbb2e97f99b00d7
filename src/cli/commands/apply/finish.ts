// The apply command after its session is open: plan, review, preflight, confirm, write, report.
// A module of its own so that run.ts can load it while the session's reads are on the wire.
import { relative, resolve } from 'node:path';
import { applyPlan } from '../../../apply/executor.js';
import type { ApplyEvent } from '../../../apply/events.js';
import { DEFAULT_MAX_REQUEST_BYTES, preflight } from '../../../apply/preflight.js';
import { staleness, type SavedPlan } from '../../../apply/saved-plan.js';
import { AbortedError, UserError } from '../../../errors.js';
import type { ToolDescriptor } from '../../../model/api.js';
import type { DesiredResource, Plan, ResourceKind } from '../../../model/resources.js';
import { renderApplyEvent, renderApplySummary } from '../../../render/apply-events.js';
import { renderProgressLine } from '../../../render/apply-progress.js';
import { advanceProgress, initialProgress } from '../../../apply/progress.js';
import { renderPlanText } from '../../../render/text.js';
import { readActualState } from '../../../state/read.js';
import { removeStaleTempFiles } from '../../../util/atomic-write.js';
import { tokenFileWriteProblem, writeTokenFile, type TokenFileSnapshot } from '../../../pipeline/token-files.js';
import type { GlobalOptions } from '../../global-options.js';
import { useColor } from '../../terminal.js';
import { confirmOrRefuse } from '../../prompt.js';
import { planSession, type PlanInputs } from '../../../pipeline/plan.js';
import type { Session } from '../../../pipeline/session.js';
import type { ApplyCommandOptions } from './options.js';
import { applyToolLockGate } from '../../../pipeline/tool-lock.js';
import { renderSurfaceDiff } from '../../../render/tool-surface.js';
import { refuseOnBlockingFindings, reviewPlan } from '../../../safety/index.js';

/** What run.ts worked out from the command line before opening the session. */
export interface ApplyRequest {
  saved: SavedPlan | undefined;
  inputs: PlanInputs;
  parallelism: number;
  maxRequestBytes: number | undefined;
}

export async function finishApply(session: Session, request: ApplyRequest, options: ApplyCommandOptions, globals: GlobalOptions): Promise<void> {
  const { saved, inputs, parallelism, maxRequestBytes: maxRequestBytesOption } = request;
  const color = useColor(globals);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const run = await planSession(session, saved ? { ...inputs, prune: hasDeletes(saved), allowMassDelete: true } : inputs);
  if (saved) {
    const reasons = staleness(saved, run.desired, run.actual);
    if (reasons.length > 0) {
      throw new UserError(`the saved plan is stale:\n  ${reasons.join('\n  ')}`, 'run `agentform plan --out` again').withCode('stale_plan');
    }
  }
  refuseOnBlockingFindings(await reviewPlan(run));
  const plan = saved ? saved.plan : run.plan;
  await removeStaleTokenTempFiles(run.desired.resources, run.desired.projectDir);
  if (session.isLocal && !options.json) process.stderr.write(`Target: ${session.targetLabel}\n`);
  const { add, change, replace, destroy } = plan.summary;
  if (!options.json) out(renderPlanText(plan, { color }));
  if (add + change + replace + destroy === 0) return;

  // Nothing is written that cannot be finished: every problem, before the first write.
  const problems = preflight(plan, run.desired, run.actual, {
    maxRequestBytes: maxRequestBytesOption ?? run.desired.target.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    ...(run.credentialScopes ? { credentialScopes: run.credentialScopes } : {}),
    tokenFileProblems: await tokenFileWriteProblems(plan, run.tokenFiles),
  });
  if (problems.length > 0) {
    throw new UserError(`refusing to apply: ${problems.length} problem${problems.length === 1 ? '' : 's'} found before any write (nothing was changed):\n  ${problems.join('\n  ')}`).withCode('preflight_refused');
  }

  // The tool servers the changed agents use must still serve what agentform.lock.yaml records.
  const toolLock = await applyToolLockGate(session.client, run, plan, options.updateLock === true, (connection, diff) => renderSurfaceDiff(connection, diff));

  if (!saved) await confirmOrRefuse(`\nApply these changes to ${session.targetLabel}? Only 'yes' will be accepted: `, options.autoApprove, 'apply');

  // On a terminal, a status line under the log shows what is in flight; it is cleared before
  // each log line and redrawn after it. Never in CI logs (no TTY) or with --json.
  const live = !options.json && process.stderr.isTTY === true && !process.env.CI;
  let progress = initialProgress(plan);
  let stopping = false;
  const onSigint = () => {
    if (!stopping) {
      stopping = true;
      process.stderr.write('\nInterrupted: letting requests in flight finish, starting no new ones (Ctrl-C again to stop at once)...\n');
      return;
    }
    // A second Ctrl-C: the user will not wait for the server. Say what may be half-way, then
    // leave at once; this is the one exit that cannot go through main's error handling.
    const inFlight = progress.inFlight.length > 0 ? progress.inFlight.join(', ') : 'nothing';
    process.stderr.write(`\nStopped at once. In flight, and possibly applied on the server: ${inFlight}. Run plan to see where things stand, then apply again.\n`);
    process.exit(130);
  };
  process.on('SIGINT', onSigint);
  const clearLive = () => live && process.stderr.write('\r\x1b[2K');
  const drawLive = () => live && process.stderr.write(renderProgressLine(progress, (process.stderr.columns ?? 100) - 1));
  const emit = (event: ApplyEvent) => {
    progress = advanceProgress(progress, event);
    clearLive();
    out(options.json ? JSON.stringify(event) : renderApplyEvent(event, { color }));
    drawLive();
  };
  const slug = run.desired.target.slug;
  const projectDir = run.desired.projectDir;
  const tested = new Map<string, { id: string; tools: readonly ToolDescriptor[] }>();
  let result;
  try {
    result = await applyPlan(plan, run.desired, run.actual, { caller: session.client }, {
      parallelism,
      waitForImages: options.wait === true,
      shouldStop: () => stopping,
      onEvent: emit,
      onConnectionTested: (name, id, tools) => tested.set(name, { id, tools }),
      reread: async (kind: ResourceKind) => {
        const fresh = (await readActualState(session.client, slug, [kind])).resources.filter((resource) => resource.kind === kind);
        // Names as the plan gave them: of two live keys of one name, the plan named the one whose
        // token the token file holds, where a fresh read names the newest.
        const plannedName = new Map(run.actual.resources.filter((resource) => resource.kind === kind).map((resource) => [resource.id, resource.name]));
        const unplanned = fresh.filter((resource) => !plannedName.has(resource.id)).map((resource) => [resource.name, resource.fingerprint] as const);
        const planned = fresh.filter((resource) => plannedName.has(resource.id)).map((resource) => [plannedName.get(resource.id) as string, resource.fingerprint] as const);
        return new Map([...unplanned, ...planned]);
      },
      saveToken: async (resource: DesiredResource, token: string) => {
        const file = resource.options?.tokenFile;
        if (typeof file !== 'string') return undefined;
        const path = resolve(projectDir, file);
        await writeTokenFile(run.tokenFiles.get(resource.name) ?? { path, content: { exists: false }, digest: null }, token);
        return relative(process.cwd(), path);
      },
    });
  } finally {
    clearLive();
    process.off('SIGINT', onSigint);
  }
  if (options.json) out(JSON.stringify({ type: 'summary', ...result }));
  else out(renderApplySummary(result, { color }));
  if (!stopping) await toolLock.finish(tested);
  if (stopping) throw new AbortedError(`Apply interrupted: ${result.notStarted.length} change(s) not started. Run apply again to finish.`, 130);
  if (result.failed.length > 0) {
    const notStarted = result.notStarted.length > 0 ? `, ${result.notStarted.length} not started` : '';
    throw new UserError(`apply finished with ${result.failed.length} failed and ${result.skipped.length} skipped change(s)${notStarted}`, 'fix the cause and run apply again: it picks up where this run stopped').withCode('apply_failed');
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

function hasDeletes(saved: SavedPlan): boolean {
  return saved.plan.changes.some((change) => change.action === 'delete');
}
