import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TurnBatchedLines, flushBeforeSignal } from '../../src/cli/turn-batched-lines.js';

function recorder(fail?: (text: string) => boolean): { writes: string[]; lines: TurnBatchedLines } {
  const writes: string[] = [];
  const lines = new TurnBatchedLines((text) => {
    if (fail?.(text)) throw new Error('stdout is gone');
    writes.push(text);
  });
  return { writes, lines };
}

describe('TurnBatchedLines', () => {
  it('writes the lines of one turn in one write, each with its newline, in order', async () => {
    const { writes, lines } = recorder();
    lines.push('a');
    lines.push('b');
    lines.push('');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['a\nb\n\n']);
  });

  it('writes each turn on its own', async () => {
    const { writes, lines } = recorder();
    lines.push('a');
    await nextTurn();
    lines.push('b');
    await nextTurn();
    expect(writes).toEqual(['a\n', 'b\n']);
  });

  it('flush() writes what is queued at once, and the scheduled write then has nothing to write', async () => {
    const { writes, lines } = recorder();
    lines.push('a');
    lines.flush();
    expect(writes).toEqual(['a\n']);
    lines.flush();
    await nextTurn();
    expect(writes).toEqual(['a\n']);
  });

  it('keeps a failed scheduled write for the next flush() to throw, once', async () => {
    const { writes, lines } = recorder((text) => text === 'a\n');
    lines.push('a');
    await nextTurn();
    expect(lines.failed).toBe(true);
    lines.push('b');
    expect(() => lines.flush()).toThrow('stdout is gone');
    expect(writes).toEqual(['b\n']);
    expect(lines.failed).toBe(false);
    expect(() => lines.flush()).not.toThrow();
  });

  it('throws a failed write from flush() itself', () => {
    const { lines } = recorder(() => true);
    lines.push('a');
    expect(() => lines.flush()).toThrow('stdout is gone');
  });
});

describe('flushBeforeSignal', () => {
  it('writes the queued lines on the signal, then raises it again without its listener', () => {
    const { writes, lines } = recorder();
    const raised: string[] = [];
    const before = process.listenerCount('SIGTERM');
    flushBeforeSignal(lines, 'SIGTERM', (signal) => {
      // Raised once the listener is gone: the process then ends as it would have.
      expect(process.listenerCount('SIGTERM')).toBe(before);
      raised.push(signal);
    });
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    lines.push('agent/a: Created after 3ms (version 1)');
    process.emit('SIGTERM', 'SIGTERM');
    expect(writes).toEqual(['agent/a: Created after 3ms (version 1)\n']);
    expect(raised).toEqual(['SIGTERM']);
  });

  it('raises the signal even when the write fails', () => {
    const { lines } = recorder(() => true);
    const raised: string[] = [];
    flushBeforeSignal(lines, 'SIGTERM', (signal) => raised.push(signal));
    lines.push('a');
    process.emit('SIGTERM', 'SIGTERM');
    expect(raised).toEqual(['SIGTERM']);
  });

  it('does nothing once stopped', () => {
    const { writes, lines } = recorder();
    const before = process.listenerCount('SIGTERM');
    const stop = flushBeforeSignal(lines, 'SIGTERM', () => undefined);
    stop();
    expect(process.listenerCount('SIGTERM')).toBe(before);
    lines.push('a');
    lines.flush();
    expect(writes).toEqual(['a\n']);
  });
});
