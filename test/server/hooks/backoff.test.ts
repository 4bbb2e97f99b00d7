import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextAttemptDelayMs } from '../../../src/server/hooks/backoff.js';

const OPTS = { baseDelayMs: 1_000, maxDelayMs: 60_000 };
const justBelowOne = () => 1 - Number.EPSILON;

describe('nextAttemptDelayMs', () => {
  it.each([
    { attempt: 1, cap: 1_000 },
    { attempt: 2, cap: 2_000 },
    { attempt: 3, cap: 4_000 },
    { attempt: 6, cap: 32_000 },
    { attempt: 7, cap: 60_000 },
    { attempt: 50, cap: 60_000 },
    { attempt: 5_000, cap: 60_000 },
    { attempt: 0, cap: 1_000 },
    { attempt: -3, cap: 1_000 },
    { attempt: Number.NaN, cap: 1_000 },
  ])('attempt $attempt: cap $cap', ({ attempt, cap }) => {
    expect(nextAttemptDelayMs(attempt, OPTS, () => 0)).toBe(0);
    expect(nextAttemptDelayMs(attempt, OPTS, () => 0.5)).toBe(Math.floor(cap / 2));
    expect(nextAttemptDelayMs(attempt, OPTS, justBelowOne)).toBe(cap - 1);
  });

  it('is full jitter: uniform over [0, cap)', () => {
    // An evenly spread source: the delays must spread evenly over [0, cap) too.
    let i = 0;
    const even = () => ((i++ * 7_919) % 4_000) / 4_000;
    const samples = Array.from({ length: 4_000 }, () => nextAttemptDelayMs(3, OPTS, even));
    expect(new Set(samples).size).toBeGreaterThan(3_900); // floor() of k/4000·4000 may land on k-1
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...samples)).toBeLessThan(4_000);
    expect(mean).toBeCloseTo(1_999.5, 0);
  });

  it.each([
    { name: 'zero base', opts: { baseDelayMs: 0, maxDelayMs: 1_000 } },
    { name: 'zero max', opts: { baseDelayMs: 1_000, maxDelayMs: 0 } },
    { name: 'negative base', opts: { baseDelayMs: -5, maxDelayMs: 1_000 } },
  ])('$name → 0', ({ opts }) => {
    expect(nextAttemptDelayMs(3, opts, justBelowOne)).toBe(0);
  });

  it('stays within [0, min(max, base·2^(n-1))) for any input and random source', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -10, max: 10_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.double({ min: -1, max: 2, noNaN: false }),
        (attempt, baseDelayMs, maxDelayMs, r) => {
          const delay = nextAttemptDelayMs(attempt, { baseDelayMs, maxDelayMs }, () => r);
          const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(cap);
        },
      ),
    );
  });

  it('uses Math.random by default', () => {
    const delays = new Set(Array.from({ length: 20 }, () => nextAttemptDelayMs(10, OPTS)));
    expect(delays.size).toBeGreaterThan(1);
  });
});
