// Quick durability: SIGINT lets in-flight requests finish, starts nothing new, reports what was done
// and exits 130; SIGKILL at a seeded point followed by a re-run converges. Many seeds:
// interrupt.stress.test.ts.
import { describe, expect, it } from 'vitest';
import { interruptScenario } from './scenarios.js';

const SHAPE = { agents: 30, providers: 3, connections: 2, secrets: 4, apiKeys: 2 };

describe('interrupting apply', () => {
  it.each([1, 2, 3])('SIGINT, seed %i: exits 130 with exactly what it reported done, and a re-run converges', async (seed) => {
    const outcome = await interruptScenario(seed, 'SIGINT', SHAPE);
    console.log(`SIGINT seed ${seed}: ${JSON.stringify(outcome)}`);
    expect(outcome.reruns).toBe(1);
  }, 60_000);

  it.each([1, 2, 3])('SIGKILL, seed %i: a re-run converges with nothing duplicated', async (seed) => {
    const outcome = await interruptScenario(seed, 'SIGKILL', SHAPE);
    console.log(`SIGKILL seed ${seed}: ${JSON.stringify(outcome)}`);
    expect(outcome.reruns).toBe(1);
  }, 60_000);
});
