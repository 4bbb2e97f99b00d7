// Table-driven unit tests: interpolation syntax, overlay merge, suggestions, globs.
import { describe, expect, it } from 'vitest';
import { globToRegExp } from '../../src/config/files.js';
import { InterpolationSyntaxError, parseTemplate, singleSecretReference } from '../../src/config/interpolate.js';
import { mergeOverlay } from '../../src/config/merge.js';
import { closest, levenshtein } from '../../src/config/suggest.js';

describe('parseTemplate', () => {
  it.each([
    ['plain', [{ text: 'plain' }]],
    ['${env:HOME}', [{ reference: { type: 'env', name: 'HOME', raw: '${env:HOME}' } }]],
    ['a ${var:x} b', [{ text: 'a ' }, { reference: { type: 'var', name: 'x', raw: '${var:x}' } }, { text: ' b' }]],
    ['${env:X:-def ault}', [{ reference: { type: 'env', name: 'X', fallback: 'def ault', raw: '${env:X:-…}' } }]],
    ['${env:X:-}', [{ reference: { type: 'env', name: 'X', fallback: '', raw: '${env:X:-…}' } }]],
    ['${file:prompts/a.md}', [{ reference: { type: 'file', path: 'prompts/a.md', raw: '${file:prompts/a.md}' } }]],
    ['cost $${x} and $5', [{ text: 'cost ${x} and $5' }]],
  ])('%s', (input, parts) => {
    expect(parseTemplate(input)).toEqual(parts);
  });

  it.each(['${env:X', '${nope:x}', '${env:}', '${env:1X}', '${file:}', '${var:}', '${}'])('rejects %s', (input) => {
    expect(() => parseTemplate(input)).toThrow(InterpolationSyntaxError);
  });

  it.each([
    ['${env:KEY}', true],
    ['${file:key.txt}', true],
    ['${var:key}', false],
    ['literal', false],
    ['x${env:KEY}', false],
    ['${env:A}${env:B}', false],
  ])('singleSecretReference(%s) → %s', (input, ok) => {
    expect(singleSecretReference(input) !== undefined).toBe(ok);
  });
});

describe('mergeOverlay', () => {
  it.each([
    [{ a: { b: 1, c: 2 } }, { a: { c: 3 } }, { a: { b: 1, c: 3 } }],
    [{ list: [1, 2] }, { list: [3] }, { list: [3] }],
    [{ a: { b: 1 } }, { a: null }, { a: null }],
    [{ a: 1 }, { b: { c: 2 } }, { a: 1, b: { c: 2 } }],
    [{ a: 'x' }, { a: { b: 1 } }, { a: { b: 1 } }],
  ])('%j + %j', (base, overlay, merged) => {
    expect(mergeOverlay(base, overlay)).toEqual(merged);
  });
});

describe('suggestions', () => {
  it.each([
    ['kitten', 'sitting', 3],
    ['modle', 'model', 1],
    ['', 'abc', 3],
    ['same', 'same', 0],
  ])('levenshtein(%s, %s) = %i', (a, b, distance) => {
    expect(levenshtein(a, b)).toBe(distance);
  });
  it.each([
    ['sytem', ['system', 'model'], 'system'],
    ['agent', ['Agent', 'Provider'], 'Agent'],
    ['zzz', ['system', 'model'], undefined],
    ['prod', ['production'], undefined],
  ])('closest(%s)', (value, candidates, expected) => {
    expect(closest(value, candidates)).toBe(expected);
  });
});

describe('globToRegExp', () => {
  it.each([
    ['**/*.yaml', 'a.yaml', true],
    ['**/*.yaml', 'a/b/c.yaml', true],
    ['config/**', 'config/x/y.yml', true],
    ['config/*.yaml', 'config/x/y.yaml', false],
    ['drafts/?.yaml', 'drafts/a.yaml', true],
    ['a.b.yaml', 'aXb.yaml', false],
  ])('%s vs %s', (glob, path, match) => {
    expect(globToRegExp(glob).test(path)).toBe(match);
  });
});
