// The fair share of large answers (src/server/list-gate.ts): at most N list-like operations run at
// once, the rest wait in arrival order; a small operation never waits for a turn.
import { describe, expect, it } from 'vitest';
import { mayAnswerLarge, TurnGate } from '../../src/server/list-gate.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnGate', () => {
  it('runs at most N at once, the others in arrival order, and passes a failed turn on', async () => {
    const gate = new TurnGate(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const work = (i: number) => async () => {
      running += 1;
      most = Math.max(most, running);
      await tick();
      await tick();
      running -= 1;
      order.push(i);
      if (i === 1) throw new Error('failed');
      return i;
    };
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => gate.run(work(i))));
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(gate.queued).toBe(0);
    // The turns were all given back: two run at once again.
    most = 0;
    await Promise.all([gate.run(work(10)), gate.run(work(11))]);
    expect(most).toBe(2);
  });

  it('holds back list-like operations only', () => {
    expect(['agents.list', 'apiKeys.list', 'connections.grants.list', 'sessions.events', 'usage.keys'].every((rpc) => mayAnswerLarge(rpc as never))).toBe(true);
    expect(['agents.get', 'agents.upsert', 'organizations.get', 'providers.models', 'secrets.create'].some((rpc) => mayAnswerLarge(rpc as never))).toBe(false);
  });
});
