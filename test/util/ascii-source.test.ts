import { describe, expect, it } from 'vitest';
import { asciiSource } from '../../src/util/ascii-source.js';
import { precompiledValidatorsCode } from '../../src/build/schemas-precompile.js';

describe('asciiSource', () => {
  it.each([
    ['a string', '"a → b"'],
    ['a template', '`x ’ y`'],
    ['a regular expression', '/^→+$/u.test("→→")'],
    ['a pattern in a string', 'new RegExp("^é$", "u").test("é")'],
    ['plain ASCII, unchanged', '"plain"'],
  ])('%s means the same', (_name, code) => {
    const ascii = asciiSource(code);
    expect(ascii).toMatch(/^[\x00-\x7f]*$/);
    expect((0, eval)(ascii)).toEqual((0, eval)(code));
  });

  it('leaves the generated validators ASCII, so V8 keeps them one byte per character', () => {
    expect(precompiledValidatorsCode('documents')).toMatch(/^[\x00-\x7f]*$/);
  });
});
