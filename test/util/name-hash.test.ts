import { describe, expect, it } from 'vitest';
import { nameHash } from '../../src/util/name-hash.js';

describe('nameHash (FNV-1a, 64 bits)', () => {
  it.each([
    // The published test vectors.
    ['', 'cbf29ce484222325'],
    ['a', 'af63dc4c8601ec8c'],
    ['foobar', '85944171f73967e8'],
  ])('of %j is %s', (text, hash) => {
    expect(nameHash(text)).toBe(hash);
  });

  it('tells paths that differ by one character apart', () => {
    expect(nameHash('/home/ci/project-1')).not.toBe(nameHash('/home/ci/project-2'));
    expect(nameHash('/home/ci/é')).not.toBe(nameHash('/home/ci/e'));
  });
});
