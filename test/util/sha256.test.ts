import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex as serverSha256Hex } from '../../src/server/util.js';
import { sha256Hex } from '../../src/util/sha256.js';

// Both are one-shot crypto.hash now; stored hashes (definition_hash, parse-cache keys) were made
// with a Hash object over UTF-8, and must come out the same.
const TEXTS = ['', 'agentform', 'é'.repeat(1000), 'a lone surrogate \ud800 and an emoji 🙂'];

describe('sha256Hex', () => {
  it.each(TEXTS)('of %j is node:crypto’s, for text and its UTF-8 bytes alike', (text) => {
    const expected = createHash('sha256').update(text).digest('hex');
    expect(sha256Hex(text)).toBe(expected);
    expect(sha256Hex(Buffer.from(text, 'utf8'))).toBe(expected);
  });

  it.each(TEXTS)('the server’s, of %j, is node:crypto’s over UTF-8', (text) => {
    expect(serverSha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });
});
