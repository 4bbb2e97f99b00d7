// Sends queued hook deliveries: polls the queue (and wakes at once when told new work exists),
// one attempt per claim, exponential backoff between attempts, `dead` after maxAttempts. A
// requeued delivery that already used its attempts gets exactly one more try.
import type { Db } from '../store/db.js';
import { nextAttemptDelayMs } from './backoff.js';
import { claimDue, recordAttempt, type ClaimedDelivery } from './queue.js';
import { sendHook, type HookDelivery, type HookSendResult } from './send.js';

export interface HookRetryOptions {
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface HookWorkerOptions extends HookRetryOptions {
  pollMs?: number;
  batch?: number;
  send?: (delivery: HookDelivery) => Promise<HookSendResult>;
}

export const DEFAULT_HOOK_RETRY = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 300_000 } as const;

export class HookWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private rerun = false;
  private readonly maxAttempts: number;
  private readonly backoff: { baseDelayMs: number; maxDelayMs: number };
  private readonly pollMs: number;
  private readonly batch: number;
  private readonly send: (delivery: HookDelivery) => Promise<HookSendResult>;

  constructor(
    private readonly db: Db,
    options: HookWorkerOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? DEFAULT_HOOK_RETRY.maxAttempts;
    this.backoff = {
      baseDelayMs: options.baseDelayMs ?? DEFAULT_HOOK_RETRY.baseDelayMs,
      maxDelayMs: options.maxDelayMs ?? Math.max(options.baseDelayMs ?? 0, DEFAULT_HOOK_RETRY.maxDelayMs),
    };
    this.pollMs = options.pollMs ?? Math.min(250, Math.max(10, this.backoff.baseDelayMs));
    this.batch = options.batch ?? 20;
    this.send = options.send ?? sendHook;
  }

  start(): void {
    this.schedule(0);
  }

  /** New deliveries exist (or were requeued): look now rather than at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.rerun = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.tick().finally(() => {
        this.running = undefined;
        const again = this.rerun;
        this.rerun = false;
        this.schedule(again ? 0 : this.pollMs);
      });
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    let claimed: ClaimedDelivery[];
    try {
      claimed = claimDue(this.db, this.batch);
    } catch {
      return; // the DB is busy or closing; the next poll tries again
    }
    await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
  }

  private async attempt({ row, url, signingSecret }: ClaimedDelivery): Promise<void> {
    const result: HookSendResult = url
      ? await this.send({ url, body: row.payload, ...(signingSecret ? { signingSecret } : {}) })
      : { ok: false, error: 'the connection has no hooksUrl' };
    if (this.stopped && !result.ok) return; // leave the claim; it is retried after a restart
    const attempts = row.attempts + 1;
    try {
      if (result.ok) recordAttempt(this.db, row.id, { ok: true });
      else
        recordAttempt(this.db, row.id, {
          ok: false,
          error: result.error ?? `HTTP ${result.status ?? '?'}`,
          retryInMs: attempts >= this.maxAttempts ? null : Math.max(1, nextAttemptDelayMs(attempts, this.backoff)),
        });
    } catch {
      // closing: the stale claim is picked up again later
    }
  }
}
