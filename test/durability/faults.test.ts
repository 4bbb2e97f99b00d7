// Quick durability: a fault-injected apply (503s, 429s, lost responses at a seeded rate) converges
// after at most one re-run, with every resource once and every agent at the versions its changes
// required. The many-seed version is faults.stress.test.ts.
import { describe, expect, it } from 'vitest';
import { faultScenario } from './scenarios.js';

const SHAPE = { agents: 30, providers: 3, connections: 2, secrets: 4 };

describe('apply under injected faults', () => {
  it.each([1, 2, 3])(
    'seed %i: converges after at most one re-run, nothing duplicated',
    async (seed) => {
      const outcome = await faultScenario(seed, { failRate: 0.1, throttleRate: 0.1, lostResponseRate: 0.1 }, 1, SHAPE);
      expect(outcome.duplicates).toBe(0);
      console.log(`faults seed ${seed}: runs ${outcome.runs.join(' + ')}`);
    },
    60_000,
  );
});
