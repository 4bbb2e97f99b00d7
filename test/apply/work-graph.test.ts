import { describe, expect, it } from 'vitest';
import { runWorkGraph, type WorkNode } from '../../src/apply/work-graph.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function node(id: string, dependsOn: string[], log: string[], options: { fail?: boolean; ms?: number } = {}): WorkNode {
  return {
    id,
    dependsOn,
    run: async () => {
      log.push(`start ${id}`);
      await delay(options.ms ?? 1);
      if (options.fail) throw new Error(`${id} broke`);
      log.push(`end ${id}`);
    },
  };
}

describe('runWorkGraph', () => {
  it('runs a node only after its dependencies are done', async () => {
    const log: string[] = [];
    await runWorkGraph([node('c', ['b'], log), node('b', ['a'], log), node('a', [], log)], { concurrency: 4 });
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('never runs more than the concurrency limit at once', async () => {
    let running = 0;
    let peak = 0;
    const nodes: WorkNode[] = Array.from({ length: 20 }, (_, i) => ({
      id: `n${i}`,
      dependsOn: [],
      run: async () => {
        running += 1;
        peak = Math.max(peak, running);
        await delay(5);
        running -= 1;
      },
    }));
    const outcomes = await runWorkGraph(nodes, { concurrency: 3 });
    expect(peak).toBe(3);
    expect(outcomes.every((outcome) => outcome.state === 'done')).toBe(true);
  });

  it('skips the dependents of a failure, transitively, and keeps independent branches going', async () => {
    const log: string[] = [];
    const outcomes = await runWorkGraph(
      [node('a', [], log, { fail: true }), node('b', ['a'], log), node('c', ['b'], log), node('x', [], log), node('y', ['x'], log)],
      { concurrency: 2 },
    );
    const states = Object.fromEntries(outcomes.map((outcome) => [outcome.id, outcome.state]));
    expect(states).toEqual({ a: 'failed', b: 'skipped', c: 'skipped', x: 'done', y: 'done' });
    expect(outcomes.find((outcome) => outcome.id === 'c')?.blockedBy).toBe('a');
    expect(log).not.toContain('start b');
  });

  it('a node that releases its dependents lets them start while it goes on, holding its slot', async () => {
    const releasing = (log: string[]): WorkNode => ({
      id: 'a',
      dependsOn: [],
      run: async (release) => {
        log.push('write a');
        release();
        release();
        log.push('probe a');
        await delay(20);
        log.push('end a');
      },
    });
    const log: string[] = [];
    const outcomes = await runWorkGraph([releasing(log), node('b', ['a'], log), node('c', ['b'], log)], { concurrency: 2 });
    expect(outcomes.every((outcome) => outcome.state === 'done')).toBe(true);
    // b and c ran while a was still probing, b once.
    expect(log).toEqual(['write a', 'probe a', 'start b', 'end b', 'start c', 'end c', 'end a']);
    // With one slot, a keeps it until it ends.
    const single: string[] = [];
    await runWorkGraph([releasing(single), node('b', ['a'], single)], { concurrency: 1 });
    expect(single).toEqual(['write a', 'probe a', 'end a', 'start b', 'end b']);
  });

  it('a node failing after it released its dependents does not skip them (they have started)', async () => {
    const log: string[] = [];
    const nodes: WorkNode[] = [
      {
        id: 'a',
        dependsOn: [],
        run: async (release) => {
          release();
          await delay(10);
          throw new Error('probe broke');
        },
      },
      node('b', ['a'], log),
    ];
    const outcomes = await runWorkGraph(nodes, { concurrency: 2 });
    expect(Object.fromEntries(outcomes.map((outcome) => [outcome.id, outcome.state]))).toEqual({ a: 'failed', b: 'done' });
  });

  it('treats dependencies outside the graph as satisfied', async () => {
    const outcomes = await runWorkGraph([node('a', ['elsewhere'], [])], { concurrency: 1 });
    expect(outcomes[0].state).toBe('done');
  });

  it('starts nothing new once asked to stop, and lets running work finish', async () => {
    const log: string[] = [];
    let stop = false;
    const nodes = [
      {
        id: 'a',
        dependsOn: [],
        run: async () => {
          log.push('a');
          stop = true;
          await delay(5);
          log.push('a done');
        },
      },
      node('b', [], log),
      node('c', ['a'], log),
    ];
    const outcomes = await runWorkGraph(nodes, { concurrency: 1, shouldStop: () => stop });
    expect(log).toEqual(['a', 'a done']);
    expect(outcomes.map((outcome) => outcome.state)).toEqual(['done', 'not-started', 'not-started']);
  });

  it('returns with nodes left not-started when they wait on each other (a cycle)', async () => {
    const outcomes = await runWorkGraph([node('a', ['b'], []), node('b', ['a'], [])], { concurrency: 2 });
    expect(outcomes.map((outcome) => outcome.state)).toEqual(['not-started', 'not-started']);
  });
});
