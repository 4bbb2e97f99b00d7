// The log of an apply's writes, for the apply console (console.ts): the event lines on stdout, a
// status line under them on a terminal, and Ctrl-C. Open from the first write to the summary.
import type { ApplyEvent } from '../../../apply/events.js';
import { advanceProgress, initialProgress, type ApplyProgress } from '../../../apply/progress.js';
import type { Plan } from '../../../model/resources.js';
import { renderProgressLine } from '../../../render/apply-progress.js';

/** Where the console writes: process.stdout and process.stderr, or a test's recorders. */
export interface ConsoleStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
}

/** The first print that failed (the plan text or a line of the log): nothing more is started. */
export interface PrintFailure {
  what: 'the plan' | 'the log';
  error: unknown;
}

export class WriteLog {
  /** On a terminal, a status line under the log shows what is in flight. */
  private readonly live: boolean;
  private progress: ApplyProgress;
  private stopping = false;
  private failure: PrintFailure | undefined;

  constructor(
    plan: Plan,
    private readonly streams: ConsoleStreams,
    options: { json: boolean; env: NodeJS.ProcessEnv },
  ) {
    // Never in CI logs (no TTY) or with --json. On a terminal each line goes out at once, as the
    // status line under them is redrawn after each.
    this.live = !options.json && streams.stderr.isTTY === true && !options.env.CI;
    this.progress = initialProgress(plan);
    process.on('SIGINT', this.onSigint);
  }

  /** Ctrl-C was pressed: requests in flight finish, nothing new starts. */
  get interrupted(): boolean {
    return this.stopping;
  }

  get printFailure(): PrintFailure | undefined {
    return this.failure;
  }

  /** Whether the writes should start nothing more: interrupted, or the output is gone. */
  get shouldStop(): boolean {
    return this.stopping || this.failure !== undefined;
  }

  printFailed(what: PrintFailure['what'], error: unknown): void {
    this.failure ??= { what, error };
  }

  /** Counts `event` for the status line and the second Ctrl-C. */
  advance(event: ApplyEvent): void {
    this.progress = advanceProgress(this.progress, event);
  }

  /** Log lines, under which the status line is redrawn. */
  print(lines: readonly string[]): void {
    this.clearLive();
    for (const line of lines) this.printLine(line);
    this.drawLive();
  }

  /** The status line cleared, the signal handlers gone. */
  close(): void {
    this.clearLive();
    process.off('SIGINT', this.onSigint);
  }

  private printLine(line: string): void {
    // A failed write stops the writes, and the lines after it are not tried.
    if (this.failure?.what === 'the log') return;
    try {
      this.streams.stdout.write(`${line}\n`);
    } catch (error) {
      this.printFailed('the log', error);
    }
  }

  private clearLive(): void {
    if (this.live) this.streams.stderr.write('\r\x1b[2K');
  }

  private drawLive(): void {
    if (this.live) this.streams.stderr.write(renderProgressLine(this.progress, (this.streams.stderr.columns ?? 100) - 1));
  }

  private readonly onSigint = (): void => {
    if (!this.stopping) {
      this.stopping = true;
      this.streams.stderr.write('\nInterrupted: letting requests in flight finish, starting no new ones (Ctrl-C again to stop at once)...\n');
      return;
    }
    // A second Ctrl-C: the user will not wait for the server. Say what may be half-way, then
    // leave at once; this is the one exit that cannot go through main's error handling.
    const inFlight = this.progress.inFlight.length > 0 ? this.progress.inFlight.join(', ') : 'nothing';
    this.streams.stderr.write(
      `\nStopped at once. In flight, and possibly applied on the server: ${inFlight}. Run plan to see where things stand, then apply again.\n`,
    );
    process.exit(130);
  };
}
