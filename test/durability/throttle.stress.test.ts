// Stress (issue 44, item 7): 30 % of requests answered 429 or 503 (half each), nothing lost, over
// 10 seeds: plan, apply and the plan after it each succeed on their first run for every seed (a
// read used to give up after 5 attempts). Prints each apply's throttling line.
import { afterAll, describe, it } from 'vitest';
import { THIRTY_PERCENT, throttleScenario, type ThrottleOutcome } from './scenarios.js';

const SEEDS = Array.from({ length: 10 }, (_, i) => 300 + i);
// Large enough (~250 requests a seed) that a request throttled 5 times in a row, where reads used
// to give up, happens in about half the seeds.
const SHAPE = { agents: 100, providers: 3, connections: 2, secrets: 4 };

describe('plan and apply under sustained throttling', () => {
  const outcomes: ThrottleOutcome[] = [];
  afterAll(() => {
    console.log(`throttling: ${outcomes.length} of ${SEEDS.length} seeds converged first time\n${outcomes.map((o) => `  ${o.seed}: ${o.line}`).join('\n')}`);
  });
  it.each(SEEDS)('seed %i: plan and apply converge first time', async (seed) => {
    outcomes.push(await throttleScenario(seed, THIRTY_PERCENT, SHAPE));
  });
});
