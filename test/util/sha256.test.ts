import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256, sha256Hex } from '../../src/util/sha256.js';

describe('sha256', () => {
  it.each(['', 'agentform', 'é'.repeat(1000)])('of %j is node:crypto’s, for text and bytes alike', (text) => {
    const expected = createHash('sha256').update(text).digest();
    expect(sha256(text).equals(expected)).toBe(true);
    expect(sha256(Buffer.from(text, 'utf8')).equals(expected)).toBe(true);
    expect(sha256Hex(text)).toBe(expected.toString('hex'));
  });
});
