// Canonical JSON feeds the local plane's stored definition hashes: the faster string builder must
// give exactly the text of the former sorted-copy-then-stringify, for any JSON value (a different
// text would make every unchanged agent look changed after an upgrade).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/util/canonical-json.js';

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}
const former = (value: unknown): string => JSON.stringify(sortKeys(value));

describe('canonicalJson (client and server)', () => {
  it('gives the former text for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(former(value));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['undefined members and items', { b: undefined, a: [1, undefined, 2] }],
    ['a __proto__ key', JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as unknown],
    ['non-finite numbers', { a: Number.NaN, b: [Number.POSITIVE_INFINITY] }],
    ['nested key order', { z: { y: 1, x: [{ b: 1, a: 2 }] }, a: 'ü\u2028"' }],
    ['an empty body', {}],
    ['array-index keys first, in numeric order', { b: 1, '10': 2, '9': 3, '': 4, '01': 5, '4294967295': 6, '4294967294': 7 }],
  ])('%s', (_name, value) => {
    expect(canonicalJson(value)).toBe(former(value));
  });
});
