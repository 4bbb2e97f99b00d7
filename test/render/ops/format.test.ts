import { describe, expect, it } from 'vitest';
import { formatCount, formatDuration, formatShare, formatTable, formatUntil, formatUsd, oneLine, visibleLength } from '../../../src/render/ops/format.js';
import { paletteFor } from '../../../src/render/palette.js';

describe('formatTable', () => {
  it('aligns columns, right-aligns numbers and leaves no trailing blanks', () => {
    expect(
      formatTable(
        [{ header: 'NAME' }, { header: 'N', align: 'right' }, { header: 'NOTE' }],
        [
          ['a', '1', ''],
          ['long-name', '1,234', 'x'],
        ],
      ),
    ).toBe(['NAME           N  NOTE', 'a              1', 'long-name  1,234  x'].join('\n'));
  });

  it('measures coloured cells by what is visible', () => {
    const warn = paletteFor(true).warn('85%!');
    expect(visibleLength(warn)).toBe(4);
    const table = formatTable(
      [{ header: 'CAP', align: 'right' }, { header: 'K' }],
      [
        [{ text: '85%!', paint: paletteFor(true).warn }, 'a'],
        ['1%', 'b'],
      ],
    );
    expect(table.split('\n')[1]).toBe(`${warn}  a`);
    expect(table.split('\n')[2]).toBe('  1%  b');
  });

  it('shows the escape codes of a plain cell instead of obeying them (only painted cells are coloured)', () => {
    const table = formatTable([{ header: 'NAME' }, { header: 'K' }], [[paletteFor(true).warn('x'), 'a']]);
    expect(table.split('\n')[1]).toBe('\\u001b[33mx\\u001b[39m  a');
  });
});

describe('value formats', () => {
  it.each([
    [0, '0s'],
    [999, '0s'],
    [75_000, '1m 15s'],
    [3_600_000, '1h'],
    [3_661_000, '1h 1m'],
    [90_061_000, '1d 1h'],
    [-125_000, '2m 5s'],
  ])('formatDuration(%i) = %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('relative times', () => {
    const now = new Date('2026-05-17T09:30:00Z');
    expect(formatUntil('2026-05-17T09:34:12Z', now)).toBe('in 4m 12s');
    expect(formatUntil('2026-05-17T09:27:00Z', now)).toBe('3m ago');
    expect(formatUntil(undefined, now)).toBe('-');
  });

  it('numbers, money, shares, one-line text', () => {
    expect(formatCount(1234567.4)).toBe('1,234,567');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatShare(0.004)).toBe('<1%');
    expect(formatShare(0)).toBe('0%');
    expect(formatShare(0.856)).toBe('86%');
    expect(oneLine('a\n  b', 60)).toBe('a b');
    expect(oneLine('x'.repeat(10), 5)).toBe('xxxx…');
  });
});
