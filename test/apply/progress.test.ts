// The apply progress state machine (src/apply/progress.ts): what the status line and the second
// Ctrl-C report.
import { describe, expect, it } from 'vitest';
import type { ApplyEvent } from '../../src/apply/events.js';
import { advanceProgress, initialProgress, type ApplyProgress } from '../../src/apply/progress.js';
import type { ResourceChange } from '../../src/model/resources.js';

const change = (action: ResourceChange['action']) => ({ action }) as ResourceChange;

describe('initialProgress', () => {
  it('counts the changes that write, not no-ops or unmanaged resources', () => {
    expect(
      initialProgress({ changes: [change('create'), change('update'), change('no-op'), change('unmanaged'), change('delete'), change('replace')] }),
    ).toEqual({ total: 4, finished: 0, inFlight: [] });
  });
});

describe('advanceProgress', () => {
  const start: ApplyProgress = { total: 3, finished: 0, inFlight: [] };
  const run = (events: ApplyEvent[]) => events.reduce(advanceProgress, start);

  it.each<[string, ApplyEvent[], ApplyProgress]>([
    ['start puts a change in flight', [{ type: 'start', address: 'agent/a', action: 'create' }], { total: 3, finished: 0, inFlight: ['agent/a'] }],
    [
      'done takes it out and counts it',
      [
        { type: 'start', address: 'agent/a', action: 'create' },
        { type: 'start', address: 'agent/b', action: 'create' },
        { type: 'done', address: 'agent/a', action: 'create', ms: 5 },
      ],
      { total: 3, finished: 1, inFlight: ['agent/b'] },
    ],
    [
      'failed counts as finished too',
      [
        { type: 'start', address: 'agent/a', action: 'update' },
        { type: 'failed', address: 'agent/a', action: 'update', ms: 5, code: 'unavailable', message: 'down' },
      ],
      { total: 3, finished: 1, inFlight: [] },
    ],
    [
      'skipped never started, and is finished',
      [{ type: 'skipped', address: 'agent/c', action: 'create', reason: 'dependency failed' }],
      { total: 3, finished: 1, inFlight: [] },
    ],
    ['info changes nothing', [{ type: 'info', message: 'waiting for images' }], start],
  ])('%s', (_name, events, expected) => {
    expect(run(events)).toEqual(expected);
  });

  it('never mutates the state it is given', () => {
    const before: ApplyProgress = { total: 1, finished: 0, inFlight: ['agent/a'] };
    advanceProgress(before, { type: 'done', address: 'agent/a', action: 'create', ms: 1 });
    expect(before).toEqual({ total: 1, finished: 0, inFlight: ['agent/a'] });
  });
});
