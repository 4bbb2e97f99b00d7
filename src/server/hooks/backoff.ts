// Delay before the next hook delivery attempt: exponential backoff with full jitter
// (a uniformly random delay in [0, min(max, base·2^(attempt-1))) ), so receivers that
// come back after an outage are not hit by every queued delivery at the same instant.

export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * @param attempt how many attempts have been made so far (1 after the first failure);
 *   values below 1 count as 1.
 * @param random a source in [0, 1); injectable for tests.
 * @returns whole milliseconds in [0, cap) where cap = min(maxDelayMs, baseDelayMs·2^(attempt-1)).
 */
export function nextAttemptDelayMs(attempt: number, { baseDelayMs, maxDelayMs }: BackoffOptions, random: () => number = Math.random): number {
  if (!(baseDelayMs > 0) || !(maxDelayMs > 0)) return 0;
  const exponent = Math.max(0, Math.floor(Number.isFinite(attempt) ? attempt : 1) - 1);
  // 2^exponent overflows to Infinity for huge attempts; min() turns that into the cap.
  const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** exponent);
  const r = random();
  const unit = r >= 0 && r < 1 ? r : 0; // a misbehaving source must not push past the cap
  return Math.floor(unit * cap);
}
