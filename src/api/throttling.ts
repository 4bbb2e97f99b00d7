// How much throttling a run met: the clients of a CLI run report to one tally, and the run ends
// with one line about it on stderr (cli/main.ts), so that a run slowed down, or stopped, by a busy
// server says so instead of leaving the user to guess from its duration.

/** The figures of a tally, also printed as JSON (`--json` runs). */
export interface ThrottlingFigures {
  /** HTTP attempts, retries included. */
  requests: number;
  /** Attempts answered 429 or 503. */
  throttled: number;
  /** Time spent waiting before trying a throttled request again, summed over requests. */
  waitedMs: number;
  /** Requests that failed throttled: the time budget was spent, or retry-after asked for more than was left. */
  gaveUp: number;
}

export class ThrottleTally {
  private readonly figures: ThrottlingFigures = { requests: 0, throttled: 0, waitedMs: 0, gaveUp: 0 };

  request(): void {
    this.figures.requests += 1;
  }

  throttled(): void {
    this.figures.throttled += 1;
  }

  waited(ms: number): void {
    this.figures.waitedMs += ms;
  }

  gaveUp(): void {
    this.figures.gaveUp += 1;
  }

  snapshot(): ThrottlingFigures {
    return { ...this.figures };
  }

  /** The run's closing line, or undefined when nothing was throttled. */
  summary(json: boolean): string | undefined {
    const { requests, throttled, waitedMs, gaveUp } = this.figures;
    if (throttled === 0) return undefined;
    if (json) return JSON.stringify({ throttling: this.snapshot() });
    const seconds = (waitedMs / 1000).toFixed(1);
    const failed = gaveUp === 0 ? 'all tried again' : `${gaveUp} ${gaveUp === 1 ? 'request' : 'requests'} gave up when the retry time budget ran out`;
    // Requests wait side by side: the sum of their waits, not the time the run lost.
    return `Throttled: ${throttled} of ${requests} requests answered 429/503; ${failed} (waits: ${seconds} s in all)`;
  }
}

/** The tally of this process's CLI run: connect/open.ts gives it to every client it makes. */
export const RUN_THROTTLING = new ThrottleTally();
