// The apply command's console, in the manner of aws-cdk's IoHost: finishApply says what happens
// (the plan, a note, a question, the writes' events, the summary) and this one object decides how
// and when each reaches the terminal. It formats nothing itself: the renderers in src/render do.
//
// Without a question to ask, the first writes go out before the plan text is printed: it is
// printed while they are on the wire (a plan of thousands of creates takes as long to render and
// print as a round trip). The output is the same, in the same order: what is said before the plan
// text is out waits for it. Everything that gates the apply has passed before anything is written.
import { monotonicMs } from '../../../util/clock.js';
import type { ApplyEvent, ApplyResult } from '../../../apply/events.js';
import { changeCount, type Plan } from '../../../model/resources.js';
import { renderApplyEvent, renderApplySummary } from '../../../render/apply-events.js';
import { planTextLines, renderPlanText } from '../../../render/text.js';
import { confirmOrRefuse } from '../../prompt.js';
import { WriteLog, type ConsoleStreams } from './write-log.js';
import type { BreakGlass, WindowVerdict } from '../../../engine/change-windows.js';
import { verdictNote } from '../../../safety/change-windows.js';

export interface ApplyConsoleOptions {
  json: boolean;
  color: boolean;
  /** Whether apply asks before writing (neither --auto-approve nor a saved plan). */
  asks: boolean;
  streams?: ConsoleStreams;
  env?: NodeJS.ProcessEnv;
  /** When the run started (monotonicMs()), for the summary's total time; default: now. */
  startedAt?: number;
  /** Where the plan was computed (a URL or the local control plane), for the --json header. */
  target?: string;
  /** How the question is asked (tests answer it themselves); default: the terminal prompt. */
  ask?: (question: string) => Promise<void>;
}

/** What the writes are given: where their events go, and whether to start more. */
export interface WriteHooks {
  onEvent: (event: ApplyEvent) => void;
  shouldStop: () => boolean;
}

export class ApplyConsole {
  private readonly streams: ConsoleStreams;
  /** The plan text is still to be printed, once the first writes are out. */
  private planPending: boolean;
  /** Notes said while the plan text is pending. */
  private readonly held: string[] = [];
  private log: WriteLog | undefined;
  private readonly startedAt: number;
  /** The change went through a change window with --break-glass: recorded in the summary too. */
  private breakGlass: BreakGlass | undefined;
  /** Time spent waiting for the answer to the question: not the run's, so not in its total. */
  private waitedMs = 0;

  constructor(
    private readonly plan: Plan,
    private readonly options: ApplyConsoleOptions,
  ) {
    this.streams = options.streams ?? process;
    this.startedAt = options.startedAt ?? monotonicMs();
    this.planPending = !options.json && changeCount(plan) > 0 && !options.asks;
  }

  /** A note on stderr; it waits for the plan text if that is still to come. */
  readonly say = (line: string): void => {
    if (this.planPending) this.held.push(line);
    else this.tell(line);
  };

  /** Which control plane is written to, before anything else (not with --json). */
  target(label: string): void {
    if (!this.options.json) this.tell(`Target: ${label}`);
  }

  /**
   * What the change windows said: a break-glass is recorded (a `break-glass` event with --json, a
   * note otherwise, and in the summary), a --break-glass no window needed is noted.
   */
  windowVerdict(verdict: WindowVerdict, environment: string): void {
    const note = verdictNote(verdict, environment);
    if (note === undefined) return;
    if (verdict.outcome === 'break-glass') this.breakGlass = verdict.record;
    if (!this.options.json) this.say(note);
    else if (verdict.outcome === 'break-glass') this.out(JSON.stringify({ type: 'break-glass', ...verdict.record }));
    else this.out(JSON.stringify({ type: 'info', message: note }));
  }

  /**
   * The plan text, unless it is printed once the first writes are out. With --json, a `plan` line
   * instead: what plan --json opens with (environment, target, summary, scope), before any event.
   */
  showPlan(): void {
    if (this.options.json) this.out(JSON.stringify(planHeader(this.plan, this.options.target)));
    else if (!this.planPending) this.out(renderPlanText(this.plan, { color: this.options.color }));
  }

  /** Runs what gates the writes; when they refuse, the plan text comes first, then the reason. */
  async beforeWrites<T>(gates: () => Promise<T>): Promise<T> {
    try {
      return await gates();
    } catch (error) {
      this.printPendingPlan();
      throw error;
    }
  }

  /** Asks `question` when apply asks; anything but `yes` cancels (prompt.ts). */
  async confirm(question: string): Promise<void> {
    if (!this.options.asks) return;
    const asked = monotonicMs();
    try {
      await (this.options.ask ?? ((text: string) => confirmOrRefuse(text, false, 'apply')))(question);
    } finally {
      this.waitedMs += monotonicMs() - asked;
    }
  }

  /**
   * The write phase: `start` starts the writes, the log shows their events, the plan text goes out
   * meanwhile if it is pending. A failed print stops the writes and is named in `stoppedBy`.
   */
  async write(start: (hooks: WriteHooks) => Promise<ApplyResult>): Promise<ApplyResult> {
    const log = new WriteLog(this.plan, this.streams, { json: this.options.json, env: this.options.env ?? process.env });
    this.log = log;
    // Event lines that come while the plan text is still being printed wait for it.
    const queued: string[] = [];
    const onEvent = (event: ApplyEvent) => {
      log.advance(event);
      const line = this.options.json ? JSON.stringify(event) : renderApplyEvent(event, { color: this.options.color });
      if (this.planPending) queued.push(line);
      else log.print([line]);
    };
    let result: ApplyResult;
    try {
      const applying = start({ onEvent, shouldStop: () => log.shouldStop });
      if (this.planPending) {
        // Awaited below; until then a failure must not count as unhandled.
        applying.catch(() => undefined);
        try {
          await this.printPlanWhileWriting();
        } catch (error) {
          // The writes already started finish and are reported; nothing new starts.
          log.printFailed('the plan', error);
        }
        this.planPending = false;
        try {
          this.flushHeld();
          log.print(queued.splice(0));
        } catch (error) {
          log.printFailed('the plan', error);
        }
      }
      result = await applying;
    } finally {
      log.close();
    }
    const failure = log.printFailure;
    if (failure !== undefined) {
      const reason = failure.error instanceof Error ? failure.error.message : String(failure.error);
      result.stoppedBy = `printing ${failure.what} failed (${reason}), so nothing more was started`;
    }
    return result;
  }

  /** Ctrl-C was pressed while writing. */
  get interrupted(): boolean {
    return this.log?.interrupted === true;
  }

  /** The summary, with the run's total time (less the wait at the question); then, if printing failed while writing, that failure. */
  report(result: ApplyResult): void {
    const ms = Math.round(monotonicMs() - this.startedAt - this.waitedMs);
    const breakGlass = this.breakGlass ? { breakGlass: this.breakGlass } : {};
    if (this.options.json) this.out(JSON.stringify({ type: 'summary', ...result, ms, ...breakGlass }));
    else this.out(renderApplySummary(result, { color: this.options.color, ms }));
    const failure = this.log?.printFailure;
    if (failure !== undefined) throw failure.error;
  }

  private out(line: string): void {
    this.streams.stdout.write(`${line}\n`);
  }

  private tell(line: string): void {
    this.streams.stderr.write(`${line}\n`);
  }

  private flushHeld(): void {
    for (const line of this.held.splice(0)) this.tell(line);
  }

  private printPendingPlan(): void {
    if (!this.planPending) return;
    this.planPending = false;
    this.out(renderPlanText(this.plan, { color: this.options.color }));
    this.flushHeld();
  }

  /**
   * The plan text in batches: between them the event loop takes the writes' answers and starts the
   * next writes, so a long plan never holds them up. The bytes are those showPlan prints.
   */
  private async printPlanWhileWriting(): Promise<void> {
    for (const batch of planTextLines(this.plan, { color: this.options.color }, PLAN_BATCH_CHANGES)) {
      // The first batch too: the first writes are sent (on the next ticks) before any rendering.
      await new Promise((resolve) => setImmediate(resolve));
      this.out(batch.join('\n'));
    }
  }
}

/** The --json header line: the fields of plan --json that say what the run covers. */
function planHeader(plan: Plan, target: string | undefined): Record<string, unknown> {
  return {
    type: 'plan',
    environment: plan.environment,
    ...(target !== undefined ? { target } : {}),
    summary: plan.summary,
    ...(plan.scope ? { scope: plan.scope } : {}),
  };
}

/**
 * Changes rendered per batch: small enough that a batch's strings die young, before they are
 * copied to the old space, where they would stay as garbage to the end of the run.
 */
const PLAN_BATCH_CHANGES = 25;
