import { describe, expect, it } from 'vitest';
import { diffSpec, joinPath } from '../../src/engine/diff.js';
import { rulesFor } from '../../src/engine/rules.js';
import type { FieldChange, JsonObject, ResourceKind } from '../../src/model/resources.js';

type Case = { name: string; kind: ResourceKind; desired: JsonObject; actual: JsonObject; expected: FieldChange[] };

const cases: Case[] = [
  { name: 'equal scalars', kind: 'provider', desired: { type: 'openai' }, actual: { type: 'openai' }, expected: [] },
  { name: 'changed scalar', kind: 'provider', desired: { type: 'openai' }, actual: { type: 'anthropic' }, expected: [{ path: 'type', before: 'anthropic', after: 'openai' }] },
  { name: 'server-filled fields are ignored', kind: 'agent', desired: { model: { model: 'a' } }, actual: { model: { model: 'a', reasoning: 'low', provider: 'x' }, description: 'd' }, expected: [] },
  { name: 'nested change', kind: 'agent', desired: { model: { model: 'b' } }, actual: { model: { model: 'a' } }, expected: [{ path: 'model.model', before: 'a', after: 'b' }] },
  { name: 'added nested field', kind: 'agent', desired: { limits: { maxTurns: 5 } }, actual: {}, expected: [{ path: 'limits.maxTurns', after: 5 }] },
  { name: 'key order never matters', kind: 'connection', desired: { auth: { type: 't', a: 1, b: 2 } }, actual: { auth: { b: 2, a: 1, type: 't' } }, expected: [] },
  { name: '1 vs 1.0', kind: 'agent', desired: { compaction: { thresholdPercent: 1.0 } }, actual: { compaction: { thresholdPercent: 1 } }, expected: [] },
  { name: 'null and absent remote', kind: 'agent', desired: { description: null }, actual: {}, expected: [] },
  { name: 'null and null remote', kind: 'provider', desired: { baseUrl: null }, actual: { baseUrl: null }, expected: [] },
  { name: 'null and the known default', kind: 'agent', desired: { model: { reasoning: null } }, actual: { model: { reasoning: 'none' } }, expected: [] },
  { name: 'null and a non-default value', kind: 'agent', desired: { model: { reasoning: null } }, actual: { model: { reasoning: 'high' } }, expected: [{ path: 'model.reasoning', before: 'high', after: null }] },
  { name: 'null without a known default', kind: 'provider', desired: { baseUrl: null }, actual: { baseUrl: 'https://x' }, expected: [{ path: 'baseUrl', before: 'https://x', after: null }] },
  { name: 'default written, absent remotely', kind: 'connection', desired: { transport: 'streamable-http' }, actual: {}, expected: [] },
  { name: 'set in another order', kind: 'apiKey', desired: { scopes: ['read', 'control'] }, actual: { scopes: ['control', 'read'] }, expected: [] },
  { name: 'set with another member', kind: 'apiKey', desired: { scopes: ['read'] }, actual: { scopes: ['control'] }, expected: [{ path: 'scopes', before: ['control'], after: ['read'], forcesReplace: true }] },
  { name: 'nested set', kind: 'agent', desired: { sandbox: { tools: { allow: ['a', 'b'] } } }, actual: { sandbox: { tools: { allow: ['b', 'a'], preset: 'read-only' } } }, expected: [] },
  { name: 'connection hookEvents are a set', kind: 'connection', desired: { hookEvents: ['x', 'y'] }, actual: { hookEvents: ['y', 'x'] }, expected: [] },
  { name: 'ordered scalar array', kind: 'agent', desired: { sandbox: { image: { steps: ['a', 'b'] } } }, actual: { sandbox: { image: { steps: ['b', 'a'] } } }, expected: [{ path: 'sandbox.image.steps', before: ['b', 'a'], after: ['a', 'b'] }] },
  { name: 'array of objects element-wise', kind: 'agent', desired: { tools: [{ type: 'builtin', name: 'a' }, { type: 'builtin', name: 'c' }] }, actual: { tools: [{ type: 'builtin', name: 'a' }, { type: 'builtin', name: 'b', extra: 1 }] }, expected: [{ path: 'tools[1].name', before: 'b', after: 'c' }] },
  { name: 'element added', kind: 'agent', desired: { tools: [{ name: 'a' }, { name: 'b' }] }, actual: { tools: [{ name: 'a' }] }, expected: [{ path: 'tools[1]', after: { name: 'b' } }] },
  { name: 'element removed', kind: 'agent', desired: { tools: [{ name: 'a' }] }, actual: { tools: [{ name: 'a' }, { name: 'b' }] }, expected: [{ path: 'tools[1]', before: { name: 'b' } }] },
  { name: 'default inside array elements', kind: 'agent', desired: { model: { fallback: { models: [{ provider: 'p', model: 'm', reasoning: null }] } } }, actual: { model: { fallback: { models: [{ provider: 'p', model: 'm', reasoning: 'none' }] } } }, expected: [] },
  { name: 'type change', kind: 'agent', desired: { limits: { maxTurns: 5 } }, actual: { limits: 'none' }, expected: [{ path: 'limits', before: 'none', after: { maxTurns: 5 } }] },
  { name: 'dotted map keys are quoted', kind: 'agent', desired: { policies: { toolCalls: { byTool: { 'gh.issue': 'deny' } } } }, actual: { policies: { toolCalls: { byTool: { 'gh.issue': 'allow' } } } }, expected: [{ path: 'policies.toolCalls.byTool["gh.issue"]', before: 'allow', after: 'deny' }] },
  { name: 'apiKey spend forces replace', kind: 'apiKey', desired: { spend: { dailyUsd: 5 } }, actual: { spend: { dailyUsd: 3 } }, expected: [{ path: 'spend.dailyUsd', before: 3, after: 5, forcesReplace: true }] },
];

describe('diffSpec', () => {
  it.each(cases)('$name', ({ kind, desired, actual, expected }) => {
    expect(diffSpec(desired, actual, rulesFor(kind))).toEqual(expected);
  });

  it('joins plain and quoted keys', () => {
    expect(joinPath('', 'a')).toBe('a');
    expect(joinPath('a', 'b')).toBe('a.b');
    expect(joinPath('a', 'x y')).toBe('a["x y"]');
  });
});
