// Fair share between large answers and small ones. A list is read, serialised and written in
// slices that yield to the event loop, but with 50 lists under way a small request still waited
// for a slice of every one of them at each of its own steps. So only a few list-like operations
// run at once; the others wait their turn in arrival order, costing nothing while they wait, and a
// small request waits for the slices of those few at most.
import type { Rpc } from '../api/operations.js';

/** How many list-like operations run at once (two keep both cores busy while one yields). */
export const LARGE_ANSWERS_AT_ONCE = 2;

/**
 * Operations whose answer grows with what the environment holds: every `*.list`, and event and
 * usage reads (not providers.models, which waits on another host rather than working).
 */
export function mayAnswerLarge(rpc: Rpc): boolean {
  return rpc.endsWith('.list') || rpc === 'sessions.events' || rpc === 'usage.keys';
}

/** A counting semaphore, first come first served. */
export class TurnGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly atOnce: number) {}

  /** Runs `work` once fewer than `atOnce` others are running. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.atOnce) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await work();
    } finally {
      // The turn passes straight to the next in line (running stays counted), or is given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  /** Operations waiting for a turn (for tests). */
  get queued(): number {
    return this.waiting.length;
  }
}
