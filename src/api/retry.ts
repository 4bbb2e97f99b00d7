// When and how long to wait before trying a request again. Throttling (429, 503: the server is
// busy, try later) is retried for time, not for a count: a sustained share of throttled answers
// must slow a run down, not fail it, while the time budget lasts. Other failures worth another
// attempt (502, 504, a reset connection, a timeout) are retried a bounded number of times.
import { UserError } from '../errors.js';
import { MAX_TIMER_MS } from '../util/clock.js';
import type { Variables } from '../util/variables.js';

export interface RetryPolicy {
  /** Attempts in all, the first included; one answered 429 or 503 counts only with `countThrottled`. */
  maxAttempts: number;
  baseDelayMs: number;
  /** The longest backoff wait; a longer retry-after is honoured (within `maxTotalMs`). */
  maxDelayMs: number;
  /**
   * No retry starts after this much time since the first attempt (waits counted in full), nor one
   * whose retry-after would end past it: the request fails at once instead.
   */
  maxTotalMs: number;
  /** Whether throttled attempts count against maxAttempts: set by AGENTFORM_MAX_RETRIES (an explicit count bounds every retry). */
  countThrottled: boolean;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 5_000, maxTotalMs: 60_000, countThrottled: false };

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const THROTTLING_STATUSES = new Set([429, 503]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** 429 Too Many Requests and 503 Service Unavailable: "busy, try later", with or without retry-after. */
export function isThrottlingStatus(status: number): boolean {
  return THROTTLING_STATUSES.has(status);
}

/**
 * Exponential backoff with full jitter, and never less than the server's retry-after when it gave
 * one: a retry-after of 0 repeated on every answer must not become a tight loop.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, retryAfterSeconds?: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const backoff = Math.floor(random() * ceiling);
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0) {
    // Capped so that no server value becomes a timer setTimeout cannot keep (the budget check stops such a wait anyway).
    return Math.min(MAX_TIMER_MS, Math.max(Math.ceil(retryAfterSeconds * 1000), backoff));
  }
  return backoff;
}

/** `retry-after` as seconds (a number or an HTTP date), or undefined. */
export function parseRetryAfter(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/**
 * The policy with AGENTFORM_MAX_RETRIES applied (then it bounds throttled attempts too); a value
 * that is not a whole number ≥ 0 is refused (a typo must not pass for the default).
 */
export function retryPolicyFrom(env: Variables, overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  // An empty variable is unset (Number('') would be 0: no retries at all).
  const raw = env.AGENTFORM_MAX_RETRIES?.trim();
  if (!raw) return { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new UserError(
      `AGENTFORM_MAX_RETRIES must be a whole number of retries (0 for none), not ${JSON.stringify(raw)}`,
      `the default is ${DEFAULT_RETRY_POLICY.maxAttempts - 1}`,
    );
  }
  return { ...DEFAULT_RETRY_POLICY, maxAttempts: Number(raw) + 1, countThrottled: true, ...overrides };
}
