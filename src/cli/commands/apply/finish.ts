// The apply command after its session is open: plan, review, preflight, confirm, write, report.
// A module of its own so that run.ts can load it while the session's reads are on the wire.
import { relative, resolve } from 'node:path';
import { applyPlan } from '../../../apply/executor.js';
import type { ApplyEvent } from '../../../apply/events.js';
import { DEFAULT_MAX_REQUEST_BYTES, preflight } from '../../../apply/preflight.js';
import { staleness, type SavedPlan } from '../../../apply/saved-plan.js';
import { AbortedError, UserError } from '../../../errors.js';
import type { ToolDescriptor } from '../../../model/api.js';
import { changeCount, type DesiredResource, type Plan, type ResourceKind } from '../../../model/resources.js';
import { renderApplyEvent, renderApplySummary } from '../../../render/apply-events.js';
import { renderProgressLine } from '../../../render/apply-progress.js';
import { advanceProgress, initialProgress } from '../../../apply/progress.js';
import { planTextLines, renderPlanText } from '../../../render/text.js';
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
import { TurnBatchedLines, flushBeforeSignal } from '../../turn-batched-lines.js';

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
  // The findings in full (every rule, every resource); the capability diff is plan's to print.
  refuseOnBlockingFindings(await reviewPlan(run, { capabilityChanges: false }));
  const plan = saved ? saved.plan : run.plan;
  await removeStaleTokenTempFiles(run.desired.resources, run.desired.projectDir);
  if (session.isLocal && !options.json) process.stderr.write(`Target: ${session.targetLabel}\n`);
  const changes = changeCount(plan);
  // Without a question to ask, the first writes go out before the plan text is printed: it is
  // printed while they are on the wire (a plan of thousands of creates takes tens of ms to render
  // and print, as long as a round trip). The output is the same, in the same order: lines that
  // come before the plan text is out wait for it (`held`, `queued`). Everything that gates the
  // apply (review, preflight, tool-lock gate) has passed before anything is written.
  const deferPlan = !options.json && changes > 0 && (saved !== undefined || options.autoApprove === true);
  let planPending = deferPlan;
  const held: string[] = [];
  const tell = (line: string) => process.stderr.write(`${line}\n`);
  const say = (line: string) => (planPending ? held.push(line) : tell(line));
  const flushHeld = () => held.splice(0).forEach(tell);
  const printPlanNow = () => {
    if (!planPending) return;
    planPending = false;
    out(renderPlanText(plan, { color }));
    flushHeld();
  };
  if (!options.json && !deferPlan) out(renderPlanText(plan, { color }));
  if (changes === 0) return;

  let toolLock;
  try {
    // Nothing is written that cannot be finished: every problem, before the first write.
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

    // The tool servers the changed agents use must still serve what agentform.lock.yaml records.
    toolLock = await applyToolLockGate(session.client, run, plan, options.updateLock === true, (connection, diff) => renderSurfaceDiff(connection, diff), say);

    if (!saved) await confirmOrRefuse(`\nApply these changes to ${session.targetLabel}? Only 'yes' will be accepted: `, options.autoApprove, 'apply');
  } catch (error) {
    // Refused before any write: the plan text first, then the reason, as without deferring.
    printPlanNow();
    throw error;
  }

  // On a terminal, a status line under the log shows what is in flight; it is cleared before
  // each log line and redrawn after it. Never in CI logs (no TTY) or with --json.
  const live = !options.json && process.stderr.isTTY === true && !process.env.CI;
  // Off a terminal (CI logs, files, pipes) the lines of the write phase go out once per turn; on
  // a terminal each line at once, as the status line under them is redrawn after each.
  const batch = live ? undefined : new TurnBatchedLines((text) => process.stdout.write(text));
  const print = batch ? batch.push : out;
  const stopFlushingOnSigterm = batch ? flushBeforeSignal(batch, 'SIGTERM') : () => undefined;
  let progress = initialProgress(plan);
  let stopping = false;
  /** The first print that failed (the plan text or a line of the log): nothing more is started. */
  let printFailure: { what: 'the plan' | 'the log'; error: unknown } | undefined;
  const printFailed = (what: 'the plan' | 'the log', error: unknown) => {
    printFailure ??= { what, error };
  };
  const flushLog = () => {
    try {
      batch?.flush();
    } catch (error) {
      printFailed('the log', error);
    }
  };
  const onSigint = () => {
    flushLog();
    if (!stopping) {
      stopping = true;
      process.stderr.write('\nInterrupted: letting requests in flight finish, starting no new ones (Ctrl-C again to stop at once)...\n');
      return;
    }
    // A second Ctrl-C: the user will not wait for the server. Say what may be half-way, then
    // leave at once; this is the one exit that cannot go through main's error handling.
    const inFlight = progress.inFlight.length > 0 ? progress.inFlight.join(', ') : 'nothing';
    process.stderr.write(
      `\nStopped at once. In flight, and possibly applied on the server: ${inFlight}. Run plan to see where things stand, then apply again.\n`,
    );
    process.exit(130);
  };
  process.on('SIGINT', onSigint);
  const clearLive = () => live && process.stderr.write('\r\x1b[2K');
  const drawLive = () => live && process.stderr.write(renderProgressLine(progress, (process.stderr.columns ?? 100) - 1));
  // Event lines that come while the plan text is still being printed wait for it.
  const queued: string[] = [];
  const emit = (event: ApplyEvent) => {
    progress = advanceProgress(progress, event);
    const line = options.json ? JSON.stringify(event) : renderApplyEvent(event, { color });
    if (planPending) {
      queued.push(line);
      return;
    }
    clearLive();
    print(line);
    drawLive();
  };
  const slug = run.desired.target.slug;
  const projectDir = run.desired.projectDir;
  const tested = new Map<string, { id: string; tools: readonly ToolDescriptor[] }>();
  let result;
  try {
    const applying = applyPlan(
      plan,
      run.desired,
      run.actual,
      { caller: session.client },
      {
        parallelism,
        waitForImages: options.wait === true,
        shouldStop: () => stopping || printFailure !== undefined || batch?.failed === true,
        onEvent: emit,
        onConnectionTested: (name, id, tools) => tested.set(name, { id, tools }),
        reread: async (kind: ResourceKind) => {
          const fresh = (await readActualState(session.client, slug, [kind])).resources.filter((resource) => resource.kind === kind);
          // Names as the plan gave them: of two live keys of one name, the plan named the one whose
          // token the token file holds, where a fresh read names the newest.
          const plannedName = new Map(run.actual.resources.filter((resource) => resource.kind === kind).map((resource) => [resource.id, resource.name]));
          const unplanned = fresh.filter((resource) => !plannedName.has(resource.id)).map((resource) => [resource.name, resource] as const);
          const planned = fresh
            .filter((resource) => plannedName.has(resource.id))
            .map((resource) => [plannedName.get(resource.id) as string, resource] as const);
          return new Map([...unplanned, ...planned]);
        },
        saveToken: async (resource: DesiredResource, token: string) => {
          const file = resource.options?.tokenFile;
          if (typeof file !== 'string') return undefined;
          const path = resolve(projectDir, file);
          await writeTokenFile(run.tokenFiles.get(resource.name) ?? { path, content: { exists: false }, digest: null }, token);
          return relative(process.cwd(), path);
        },
      },
    );
    if (planPending) {
      // Awaited below; until then a failure must not count as unhandled.
      applying.catch(() => undefined);
      try {
        await printPlanWhileWriting(plan, color, out);
      } catch (error) {
        // The writes already started finish and are reported; nothing new starts.
        printFailed('the plan', error);
      }
      planPending = false;
      try {
        flushLog();
        flushHeld();
        clearLive();
        for (const line of queued.splice(0)) print(line);
        drawLive();
      } catch (error) {
        printFailed('the plan', error);
      }
    }
    result = await applying;
  } finally {
    clearLive();
    process.off('SIGINT', onSigint);
    stopFlushingOnSigterm();
    flushLog();
  }
  if (printFailure !== undefined) {
    const { what, error } = printFailure;
    result.stoppedBy = `printing ${what} failed (${error instanceof Error ? error.message : String(error)}), so nothing more was started`;
  }
  if (options.json) out(JSON.stringify({ type: 'summary', ...result }));
  else out(renderApplySummary(result, { color }));
  if (printFailure !== undefined) throw printFailure.error;
  if (!stopping) await toolLock.finish(tested);
  if (stopping) throw new AbortedError(`Apply interrupted: ${result.notStarted.length} change(s) not started. Run apply again to finish.`, 130);
  if (result.failed.length > 0) {
    const notStarted = result.notStarted.length > 0 ? `, ${result.notStarted.length} not started` : '';
    throw new UserError(
      `apply finished with ${result.failed.length} failed and ${result.skipped.length} skipped change(s)${notStarted}`,
      'fix the cause and run apply again: it picks up where this run stopped',
    ).withCode('apply_failed');
  }
}

/**
 * The plan text, printed in batches while the first writes are on the wire: between batches the
 * event loop takes their answers and starts the next writes, so a long plan never holds them up.
 * The bytes are renderPlanText's, followed by a newline, as `out(renderPlanText(...))` prints them.
 */
async function printPlanWhileWriting(plan: Plan, color: boolean, out: (line: string) => void): Promise<void> {
  for (const batch of planTextLines(plan, { color }, PLAN_BATCH_CHANGES)) {
    // The first batch too: the first writes are sent (on the next ticks) before any rendering.
    await new Promise((resolve) => setImmediate(resolve));
    out(batch.join('\n'));
  }
}

/**
 * Changes rendered per batch: 25 creates of the benchmark's agents take ~0.3 ms and allocate
 * ~0.25 MB, so a batch's strings die before the young generation (1 MB) is collected twice. With
 * 100, a batch lived through collections and reached the old space, where it stayed as garbage to
 * the end of the run: apply from empty peaked 1.5 MB higher at 1,000 agents, 6 MB at 5,000.
 */
const PLAN_BATCH_CHANGES = 25;

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
