// Lines written together, once per turn of the event loop, instead of one write each.
//
// Why: an apply prints two lines per change (Creating, Created) while its writes are on the wire;
// to a file or a pipe every process.stdout.write is its own write(2) on the event loop, thousands
// of them in a large apply. One write per turn prints the same bytes in the same order.
//
// The caller flushes before anything else is written to the terminal (stderr lines, a prompt,
// an exit), so that stdout and stderr keep their order where they share a terminal or a log; and
// flushBeforeSignal() keeps a kill (a CI job cancelled with SIGTERM) from losing the queued lines
// that a line-at-a-time writer would already have written.

export class TurnBatchedLines {
  private pending: string[] = [];
  private scheduled = false;
  /** A write that failed in a scheduled flush, thrown by the next flush() the caller makes. */
  private failure: { error: unknown } | undefined;

  constructor(private readonly write: (text: string) => void) {}

  /** A scheduled flush failed (flush() will throw it). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Queues `line` (a newline is added); it is written at the end of this turn at the latest. */
  readonly push = (line: string): void => {
    this.pending.push(line);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      try {
        this.writePending();
      } catch (error) {
        // Thrown from an immediate it would end the process: the caller's next flush() throws it.
        this.failure ??= { error };
      }
    });
  };

  /** Writes everything queued now; throws what a scheduled flush could not write. */
  flush(): void {
    this.writePending();
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure.error;
  }

  private writePending(): void {
    if (this.pending.length === 0) return;
    const text = `${this.pending.join('\n')}\n`;
    this.pending = [];
    this.write(text);
  }
}

/**
 * Until the returned function is called: on `signal`, writes what `lines` holds, then lets the
 * signal do what it would have done without this listener (`raise`, by default sending it again
 * once the listener is gone: the process ends as killed).
 */
export function flushBeforeSignal(
  lines: TurnBatchedLines,
  signal: NodeJS.Signals,
  raise: (signal: NodeJS.Signals) => void = (sent) => process.kill(process.pid, sent),
): () => void {
  const onSignal = () => {
    process.off(signal, onSignal);
    try {
      lines.flush();
    } catch {
      // Nowhere left to report it: the process is ending.
    }
    raise(signal);
  };
  process.on(signal, onSignal);
  return () => process.off(signal, onSignal);
}
