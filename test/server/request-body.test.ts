// The request body checks (server/request-body.ts) name the field they refuse; the path is built
// only for the error, from the place of the value in the body.
import { describe, expect, it } from 'vitest';
import { parseRequestBody } from '../../src/server/request-body.js';
import { ServiceError } from '../../src/server/service-error.js';

const refusal = (text: string): { message: string; details: unknown } => {
  try {
    parseRequestBody(Buffer.from(text, 'utf8'));
  } catch (error) {
    if (error instanceof ServiceError) return { message: error.message, details: error.details };
    throw error;
  }
  throw new Error('accepted');
};

describe('parseRequestBody refusals name the field', () => {
  it.each([
    ['a long name inside an array of objects', `{"definition":{"subagents":[{"kind":"k"},{"name":"${'n'.repeat(201)}"}]}}`, 'definition.subagents[1].name'],
    ['a __proto__ key two levels down', '{"definition":{"policies":{"__proto__":{}}}}', 'definition.policies.__proto__'],
    ['a lone surrogate in a nested array', '{"a":[["ok","\\ud800"]]}', 'a[0][1]'],
    ['a lone surrogate at the root', '"\\udc00"', '(body)'],
    ['a top-level field', `{"description":"${'d'.repeat(4001)}"}`, 'description'],
  ])('%s', (_what, text, field) => {
    const { message, details } = refusal(text);
    // A length refusal also gives the limit.
    expect(details).toMatchObject({ field });
    expect(Object.keys(details as object).filter((key) => key !== 'maxLength')).toEqual(['field']);
    expect(message.startsWith(`${field}: `)).toBe(true);
  });

  it.each([
    ['a lone surrogate in a key', '{"a":{"k\\udbff":1}}', 'a.k\udbff'],
    ['a lone low surrogate after other escapes', '{"a":"\\n\\u0041\\udfff"}', 'a'],
  ])('%s (only a \\u escape can make one)', (_what, text, field) => {
    expect(refusal(text).details).toEqual({ field });
  });

  it('a surrogate pair, escaped or not, is text', () => {
    expect(parseRequestBody(Buffer.from('{"a":"\\ud83d\\ude00","b":"😀"}'))).toEqual({ a: '😀', b: '😀' });
  });

  it.each([
    ['64 levels', 64, true],
    ['65 levels', 65, false],
  ])('nesting: %s', (_what, depth, accepted) => {
    const text = '['.repeat(depth) + ']'.repeat(depth);
    if (accepted) expect(() => parseRequestBody(Buffer.from(text))).not.toThrow();
    else expect(refusal(text).message).toMatch(/nests deeper than 64 levels/);
  });

  it('many brackets side by side are not nesting', () => {
    const text = `{"a":[${Array.from({ length: 200 }, () => '{"b":[1]}').join(',')}]}`;
    expect((parseRequestBody(Buffer.from(text)) as { a: unknown[] }).a).toHaveLength(200);
    // And brackets inside strings count for nothing.
    expect(parseRequestBody(Buffer.from(`{"s":"${'['.repeat(100)}"}`))).toEqual({ s: '['.repeat(100) });
  });

  it('accepts what breaks no rule', () => {
    expect(parseRequestBody(Buffer.from('{"a":[{"name":"n","description":"d"}],"b":null}'))).toEqual({ a: [{ name: 'n', description: 'd' }], b: null });
  });
});
