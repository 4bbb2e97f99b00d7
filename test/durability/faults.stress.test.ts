// Stress: 503s, 429s and lost responses at seeded rates (together up to 30 % of requests) over 20
// seeds; apply plus at most two re-runs converges, every resource exists once, every agent has the
// versions its changes required. Prints runs needed per seed.
import { afterAll, describe, expect, it } from 'vitest';
import { seeded } from './harness.js';
import { faultScenario, type FaultOutcome } from './scenarios.js';

const SEEDS = Array.from({ length: 20 }, (_, i) => 200 + i);
const SHAPE = { agents: 40, providers: 3, connections: 2, secrets: 4 };

/** A total fault share of 10, 20 or 30 %, split between the three kinds by seeded weights. */
function ratesFor(seed: number): { failRate: number; throttleRate: number; lostResponseRate: number } {
  const random = seeded(seed);
  const total = [0.1, 0.2, 0.3][seed % 3]!;
  const weights = [random(), random(), random()];
  const sum = weights[0]! + weights[1]! + weights[2]!;
  return { failRate: (total * weights[0]!) / sum, throttleRate: (total * weights[1]!) / sum, lostResponseRate: (total * weights[2]!) / sum };
}

describe('apply under seeded faults', () => {
  const outcomes: Array<FaultOutcome & { total: number }> = [];
  afterAll(() => {
    const line = outcomes.map((o) => `${o.seed}@${Math.round(o.total * 100)}%:${o.runs.join('+')}`).join(' ');
    console.log(`faults: ${outcomes.length} seeds, duplicates ${outcomes.reduce((n, o) => n + o.duplicates, 0)}; runs (create+update) per seed: ${line}`);
  });
  it.each(SEEDS)('seed %i converges within two re-runs, nothing duplicated', async (seed) => {
    const rates = ratesFor(seed);
    const outcome = await faultScenario(seed, rates, 2, SHAPE);
    outcomes.push({ ...outcome, total: rates.failRate + rates.throttleRate + rates.lostResponseRate });
    expect(outcome.duplicates).toBe(0);
    expect(Math.max(...outcome.runs)).toBeLessThanOrEqual(3);
  });
});
