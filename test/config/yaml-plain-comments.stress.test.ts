// The comment-placement differential (yaml-comment-placement.ts) at length: 100,000 documents by
// default (PLAIN_COMMENT_CASES, PLAIN_SEED), each refused by the plain parser or read by it exactly
// as the yaml library reads it. Every disagreement is listed, not only the first.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/server/faults.js';
import { commentPlacementDocument } from './yaml-comment-placement.js';
import { disagreementWithLibrary } from './yaml-differential.js';

describe('the plain YAML parser, with comments anywhere', () => {
  it('refuses each document or reads it as the library does', () => {
    const cases = Number(process.env.PLAIN_COMMENT_CASES ?? 100_000);
    const random = seededRandom(Number(process.env.PLAIN_SEED ?? 4505));
    const disagreements: string[] = [];
    let agreed = 0;
    for (let iteration = 0; iteration < cases; iteration++) {
      // One to three comments, and now and then none (the documents as they were written).
      const text = commentPlacementDocument(random, iteration % 10 === 0 ? 0 : 3);
      const outcome = disagreementWithLibrary(text);
      if (outcome === 'agreed') agreed++;
      else if (outcome !== 'refused') disagreements.push(text);
    }
    expect(disagreements).toEqual([]);
    // Enough are read for the comparison to mean something.
    expect(agreed).toBeGreaterThan(cases / 10);
  });
});
