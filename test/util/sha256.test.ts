import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/util/sha256.js';

describe('sha256Hex', () => {
  it.each(['', 'agentform', 'é'.repeat(1000)])('of %j is node:crypto’s, for text and its UTF-8 bytes alike', (text) => {
    const expected = createHash('sha256').update(text).digest('hex');
    expect(sha256Hex(text)).toBe(expected);
    expect(sha256Hex(Buffer.from(text, 'utf8'))).toBe(expected);
  });
});
