// lazyProperty: computed once on first read, kept out of sight, one getter for every object.
import { describe, expect, it } from 'vitest';
import { lazyProperty } from '../../src/util/lazy-property.js';

describe('lazyProperty', () => {
  it('computes on first read only, undefined included, and shares one getter', () => {
    let calls = 0;
    const descriptor = lazyProperty((object: { n: number }) => {
      calls++;
      return object.n > 0 ? object.n * 2 : undefined;
    });
    const [a, b] = [{ n: 2 }, { n: 0 }].map((object) => Object.defineProperty(object, 'double', descriptor) as { n: number; double?: number });
    expect(calls).toBe(0);
    expect([a!.double, a!.double, b!.double, b!.double]).toEqual([4, 4, undefined, undefined]);
    expect(calls).toBe(2);
    expect(Object.getOwnPropertyDescriptor(a, 'double')?.get).toBe(Object.getOwnPropertyDescriptor(b, 'double')?.get);
  });

  it('reads as a plain property to JSON, spreads and Object.keys, with nothing else showing', () => {
    const object = Object.defineProperty(
      { n: 3 },
      'double',
      lazyProperty((self: { n: number }) => self.n * 2),
    ) as { n: number; double: number };
    expect(JSON.parse(JSON.stringify(object))).toEqual({ n: 3, double: 6 });
    expect({ ...object }).toEqual({ n: 3, double: 6 });
    expect(Object.keys(object)).toEqual(['n', 'double']);
    expect(Object.getOwnPropertySymbols({ ...object })).toEqual([]);
  });
});
