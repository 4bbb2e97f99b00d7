// Stress: SIGINT and SIGKILL at seeded stop points over 20 seeds each (SIGTERM, which ends a run as
// SIGKILL does once its queued lines are out, runs 3 seeds in interrupt.test.ts); every run converges after
// one re-run with nothing duplicated. Prints the measured numbers.
import { afterAll, describe, expect, it } from 'vitest';
import { interruptScenario, type InterruptOutcome } from './scenarios.js';

const SEEDS = Array.from({ length: 20 }, (_, i) => 100 + i);
const SHAPE = { agents: 40, providers: 3, connections: 2, secrets: 4, apiKeys: 2 };

describe.each(['SIGINT', 'SIGKILL'] as const)('%s at a seeded point', (signal) => {
  const outcomes: InterruptOutcome[] = [];
  afterAll(() => {
    const stopped = outcomes.filter((o) => o.firstExit !== 0).length;
    console.log(`${signal}: ${outcomes.length} seeds, ${stopped} stopped mid-run, re-runs needed: ${outcomes.map((o) => o.reruns).join(',')}`);
  });
  it.each(SEEDS)('seed %i converges after one re-run', async (seed) => {
    const outcome = await interruptScenario(seed, signal, SHAPE);
    outcomes.push(outcome);
    expect(outcome.reruns).toBe(1);
  });
});
