// The property the plain-YAML parser is held to: for any text, it refuses it, or it reads exactly
// what the yaml library reads (values, index, offsets, line starts) and the library finds no problem.
// Shared by yaml-plain.test.ts and the stress runs of the comment-placement generator.
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import { parsePlainYaml } from '../../src/config/yaml-plain.js';
import { parseWithLibrary } from '../../src/config/yaml-source.js';

export type Outcome = 'refused' | 'agreed';

/** Whether the plain parser refused the text or agreed with the library; a disagreement fails the test, saying how. */
export function compareWithLibrary(text: string): Outcome {
  const disagreement = disagreementWithLibrary(text);
  if (disagreement === 'refused' || disagreement === 'agreed') return disagreement;
  const { plain, library } = disagreement;
  expect(library.problems, `the plain parser accepted text the library has problems with:\n${text}`).toEqual([]);
  expect(plain, `the plain parser read this differently:\n${text}`).toEqual(library.documents);
  return 'agreed';
}

/**
 * The same check without failing the test, so that a long run can count and list what it finds.
 * The strict deep comparison is the quick one; only what it rejects is held to toEqual's looser one.
 */
export function disagreementWithLibrary(text: string): Outcome | { plain: unknown; library: ReturnType<typeof parseWithLibrary> } {
  const plain = parsePlainYaml(text);
  if (plain === undefined) return 'refused';
  const library = parseWithLibrary('f.yaml', text);
  if (library.problems.length === 0 && isDeepStrictEqual(plain, library.documents)) return 'agreed';
  if (library.problems.length === 0 && looselyEqual(plain, library.documents)) return 'agreed';
  return { plain, library };
}

function looselyEqual(actual: unknown, expected: unknown): boolean {
  try {
    expect(actual).toEqual(expected);
    return true;
  } catch {
    return false;
  }
}
