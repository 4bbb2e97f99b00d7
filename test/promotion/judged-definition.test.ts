import { describe, expect, it } from 'vitest';
import { judgedDefinition, restrictTo } from '../../src/promotion/judged-definition.js';
import type { JsonObject } from '../../src/model/resources.js';

// A version as a server holds it: what the configuration set, plus what the server filled in.
const configured: JsonObject = {
  system: 'Be brief.',
  policies: { toolCalls: { default: 'ask', byTool: { search: 'allow' } } },
  tools: [{ type: 'builtin', name: 'current_time' }],
  temperature: null,
};
const version: JsonObject = {
  system: 'Be brief.',
  policies: { toolCalls: { default: 'ask', byTool: { search: 'allow' }, onError: 'deny', onTimeout: 'deny' }, decisions: { onExpire: 'deny' } },
  tools: [{ type: 'builtin', name: 'current_time', serverRevision: 7 }],
  temperature: 1,
};

describe('judgedDefinition', () => {
  it.each([
    {
      name: 'a version that is its configuration is judged as the configuration',
      configured,
      version,
      asConfigured: true,
      judged: {
        system: 'Be brief.',
        policies: { toolCalls: { default: 'ask', byTool: { search: 'allow' } } },
        tools: [{ type: 'builtin', name: 'current_time', serverRevision: 7 }],
      },
    },
    {
      name: 'a version that differs in a configured field is judged whole',
      configured: { ...configured, system: 'Be terse.' },
      version,
      asConfigured: false,
      judged: version,
    },
    { name: 'an agent the configuration does not declare is judged whole', configured: undefined, version, asConfigured: false, judged: version },
  ])('$name', ({ configured, version, asConfigured, judged }) => {
    const result = judgedDefinition(version, version, configured);
    expect(result.asConfigured).toBe(asConfigured);
    expect(result.definition).toEqual(judged);
  });

  it('judges what is written (the target kept fields, pinned subagents) in the shape of what the write sets', () => {
    const written = { ...version, limits: { maxTurns: 3, maxInputTokensPerSession: 9 } };
    const shape = { ...configured, limits: { maxTurns: 3 } };
    expect(judgedDefinition(written, version, configured, shape).definition).toMatchObject({ limits: { maxTurns: 3 } });
    expect(judgedDefinition(written, version, configured, shape).definition).not.toHaveProperty('limits.maxInputTokensPerSession');
  });
});

describe('restrictTo', () => {
  it('keeps the fields the shape sets, descending into objects, lists and scalars whole', () => {
    expect(restrictTo({ a: { b: 1, c: 2 }, d: [1, 2], e: 3 }, { a: { b: 0 }, d: [], f: 1, e: null })).toEqual({ a: { b: 1 }, d: [1, 2] });
  });
});
