import { describe, expect, it } from 'vitest';
import { renderProgressLine } from '../../src/render/apply-progress.js';

describe('renderProgressLine', () => {
  it.each([
    [{ total: 10, finished: 0, inFlight: [] }, '… 0/10 done, 0 in flight'],
    [{ total: 10, finished: 3, inFlight: ['agent/a'] }, '… 3/10 done, 1 in flight: agent/a'],
    [{ total: 10, finished: 3, inFlight: ['agent/a', 'agent/b', 'agent/c', 'agent/d', 'agent/e'] }, '… 3/10 done, 5 in flight: agent/a, agent/b, agent/c +2'],
  ])('%j → %s', (progress, expected) => {
    expect(renderProgressLine(progress)).toBe(expected);
  });

  it('fits the terminal width', () => {
    const line = renderProgressLine({ total: 1000, finished: 1, inFlight: ['agent/a-very-long-name-that-goes-on-and-on-and-on'] }, 30);
    expect(line.length).toBe(30);
    expect(line.endsWith('…')).toBe(true);
  });
});
