import { describe, expect, it } from 'vitest';
import { hasNullField, withoutNulls } from '../../src/model/json.js';
import type { JsonValue } from '../../src/model/resources.js';

describe('withoutNulls', () => {
  const cases: Array<{ name: string; value: JsonValue; expected: JsonValue }> = [
    { name: 'a scalar', value: 'text', expected: 'text' },
    { name: 'null itself (only fields are dropped)', value: null, expected: null },
    { name: 'a flat object', value: { a: 1, b: null, c: 'x' }, expected: { a: 1, c: 'x' } },
    { name: 'the first field null', value: { a: null, b: 2 }, expected: { b: 2 } },
    { name: 'the last field null', value: { a: 1, b: 2, c: null }, expected: { a: 1, b: 2 } },
    { name: 'every field null', value: { a: null, b: null }, expected: {} },
    { name: 'a nested null', value: { a: { b: { c: null, d: [1] } }, e: true }, expected: { a: { b: { d: [1] } }, e: true } },
    { name: 'nulls inside arrays are kept', value: { list: [null, 1, null] }, expected: { list: [null, 1, null] } },
    { name: 'objects inside arrays', value: [{ a: null, b: 1 }, { c: 2 }], expected: [{ b: 1 }, { c: 2 }] },
    { name: 'an array element after a changed one', value: [{ a: 1 }, { b: null }, { c: 3 }], expected: [{ a: 1 }, {}, { c: 3 }] },
    { name: 'no null anywhere', value: { a: { b: [1, { c: 'd' }] } }, expected: { a: { b: [1, { c: 'd' }] } } },
  ];
  it.each(cases)('$name', ({ value, expected }) => {
    expect(withoutNulls(value)).toEqual(expected);
  });

  it('keeps the order of the remaining fields', () => {
    expect(Object.keys(withoutNulls({ z: 1, y: null, x: 2, w: { v: null }, u: 3 }) as object)).toEqual(['z', 'x', 'w', 'u']);
  });

  it('never changes its argument', () => {
    const value = { a: null, b: { c: null, d: [{ e: null }] }, f: [1, null] };
    const before = structuredClone(value);
    withoutNulls(value);
    expect(value).toEqual(before);
  });

  it('copies only the parts on the way to a dropped null, and returns the rest as it is', () => {
    const untouched = { deep: { list: [1, 2] } };
    const changed = { keep: 1, drop: null };
    const value = { untouched, changed, list: [untouched, changed] };
    const result = withoutNulls(value) as typeof value;
    expect(result).not.toBe(value);
    expect(result.untouched).toBe(untouched);
    expect(result.changed).not.toBe(changed);
    expect(result.list).not.toBe(value.list);
    expect(result.list[0]).toBe(untouched);
    expect(withoutNulls(untouched)).toBe(untouched);
  });
});

describe('hasNullField', () => {
  it.each([
    [{ a: 1 }, false],
    [{ a: { b: null } }, true],
    [[{ a: null }], true],
    [[null], false],
    ['x', false],
  ] as Array<[JsonValue, boolean]>)('%j: %s', (value, expected) => {
    expect(hasNullField(value)).toBe(expected);
  });

  it('agrees with withoutNulls on whether anything is dropped', () => {
    for (const value of [{ a: 1 }, { a: null }, { a: [{ b: null }] }, [{ c: 1 }]] as JsonValue[]) {
      expect(withoutNulls(value) !== value).toBe(hasNullField(value));
    }
  });
});
