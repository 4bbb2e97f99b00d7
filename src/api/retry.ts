// When and how long to wait before trying a request again.
import { UserError } from '../errors.js';
import type { Variables } from '../util/variables.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No retry starts after this much time since the first attempt. */
  maxTotalMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 5_000, maxTotalMs: 60_000 };

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** Exponential backoff with full jitter, or the server's retry-after when it gave one (capped). */
export function retryDelayMs(attempt: number, policy: RetryPolicy, retryAfterSeconds?: number, random: () => number = Math.random): number {
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0) {
    return Math.min(retryAfterSeconds * 1000, policy.maxDelayMs);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** `retry-after` as seconds (a number or an HTTP date), or undefined. */
export function parseRetryAfter(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** The policy with AGENTFORM_MAX_RETRIES applied; a value that is not a whole number ≥ 0 is refused (a typo must not pass for the default). */
export function retryPolicyFrom(env: Variables, overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  // An empty variable is unset (Number('') would be 0: no retries at all).
  const raw = env.AGENTFORM_MAX_RETRIES?.trim();
  if (!raw) return { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new UserError(`AGENTFORM_MAX_RETRIES must be a whole number of retries (0 for none), not ${JSON.stringify(raw)}`, `the default is ${DEFAULT_RETRY_POLICY.maxAttempts - 1}`);
  }
  return { ...DEFAULT_RETRY_POLICY, maxAttempts: Number(raw) + 1, ...overrides };
}
