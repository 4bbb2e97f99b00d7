import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprint } from '../../src/engine/canonical.js';

/** Rebuilds an object with its keys in reverse order, at every depth. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((key) => [key, reversedKeys((value as Record<string, unknown>)[key])]),
  );
}

describe('canonicalJson', () => {
  it.each([
    [{ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } }, '{"a":{"d":[2,{"y":2,"z":1}]},"b":1}'],
    [[], '[]'],
    [{}, '{}'],
    [{ a: undefined }, '{}'],
    [{ a: undefined, b: null }, '{"b":null}'],
    [[undefined, 1], '[null,1]'],
    [undefined, 'null'],
    ['quote " and \u2028', JSON.stringify('quote " and \u2028')],
    [{ '"k"': 1, ü: [true, false] }, '{"\\"k\\"":1,"ü":[true,false]}'],
  ])('%j → %s', (value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it('is JSON of the same value, and the same string whatever the key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(reversedKeys(value))).toBe(text);
      }),
      { seed: 20261123, numRuns: 300 },
    );
  });

  it('gives equal fingerprints for equal meaning and different ones otherwise', () => {
    expect(fingerprint({ a: 1, b: 2 })).toBe(fingerprint({ b: 2, a: 1.0 }));
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: 2 }));
    expect(fingerprint({})).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
