import { describe, expect, it } from 'vitest';
import { diffSpec, joinPath, resetFields } from '../../src/engine/diff.js';
import { rulesFor } from '../../src/engine/rules.js';
import type { FieldChange, JsonObject, ResourceKind } from '../../src/model/resources.js';

type Case = { name: string; kind: ResourceKind; desired: JsonObject; actual: JsonObject; expected: FieldChange[] };

const cases: Case[] = [
  { name: 'equal scalars', kind: 'provider', desired: { type: 'openai' }, actual: { type: 'openai' }, expected: [] },
  {
    name: 'changed scalar',
    kind: 'provider',
    desired: { type: 'openai' },
    actual: { type: 'anthropic' },
    expected: [{ path: 'type', before: 'anthropic', after: 'openai' }],
  },
  {
    name: 'server-filled fields are ignored',
    kind: 'agent',
    desired: { model: { model: 'a' } },
    actual: { model: { model: 'a', reasoning: 'low', provider: 'x' }, description: 'd' },
    expected: [],
  },
  {
    name: 'nested change',
    kind: 'agent',
    desired: { model: { model: 'b' } },
    actual: { model: { model: 'a' } },
    expected: [{ path: 'model.model', before: 'a', after: 'b' }],
  },
  { name: 'added nested field', kind: 'agent', desired: { limits: { maxTurns: 5 } }, actual: {}, expected: [{ path: 'limits.maxTurns', after: 5 }] },
  {
    name: 'key order never matters',
    kind: 'connection',
    desired: { auth: { type: 't', a: 1, b: 2 } },
    actual: { auth: { b: 2, a: 1, type: 't' } },
    expected: [],
  },
  { name: '1 vs 1.0', kind: 'agent', desired: { compaction: { thresholdPercent: 1.0 } }, actual: { compaction: { thresholdPercent: 1 } }, expected: [] },
  { name: 'null and absent remote', kind: 'agent', desired: { description: null }, actual: {}, expected: [] },
  { name: 'null and null remote', kind: 'provider', desired: { baseUrl: null }, actual: { baseUrl: null }, expected: [] },
  // null is "left to the server": never a change on its own, whatever the server's default.
  { name: 'null and the known default', kind: 'agent', desired: { model: { reasoning: null } }, actual: { model: { reasoning: 'none' } }, expected: [] },
  { name: 'null and any other value', kind: 'agent', desired: { model: { reasoning: null } }, actual: { model: { reasoning: 'high' } }, expected: [] },
  { name: 'null without a known default', kind: 'provider', desired: { baseUrl: null }, actual: { baseUrl: 'https://x' }, expected: [] },
  // No rule depends on the server-defaults table: a value the server does not report is a change.
  {
    name: 'a default written, absent remotely',
    kind: 'connection',
    desired: { transport: 'streamable-http' },
    actual: {},
    expected: [{ path: 'transport', after: 'streamable-http' }],
  },
  { name: 'an empty list, absent remotely', kind: 'agent', desired: { sandbox: { tools: { deny: [] } } }, actual: { sandbox: { tools: {} } }, expected: [] },
  { name: 'an empty list, null remotely', kind: 'agent', desired: { tools: [] }, actual: { tools: null }, expected: [] },
  {
    name: 'an empty list removes a remote list',
    kind: 'agent',
    desired: { sandbox: { tools: { deny: [] } } },
    actual: { sandbox: { tools: { deny: ['rm'] } } },
    expected: [{ path: 'sandbox.tools.deny', before: ['rm'], after: [] }],
  },
  // Maps keyed by user data are whole values: entries the configuration does not list are removed.
  {
    name: 'byTool entry added out of band',
    kind: 'agent',
    desired: { policies: { toolCalls: { byTool: { a: 'ask' } } } },
    actual: { policies: { toolCalls: { byTool: { a: 'ask', shell: 'allow' } } } },
    expected: [{ path: 'policies.toolCalls.byTool.shell', before: 'allow' }],
  },
  {
    name: 'byTool emptied',
    kind: 'agent',
    desired: { policies: { toolCalls: { byTool: {} } } },
    actual: { policies: { toolCalls: { byTool: { shell: 'allow' } } } },
    expected: [{ path: 'policies.toolCalls.byTool.shell', before: 'allow' }],
  },
  {
    name: 'byTool empty, absent remotely',
    kind: 'agent',
    desired: { policies: { toolCalls: { byTool: {} } } },
    actual: { policies: { toolCalls: {} } },
    expected: [],
  },
  {
    name: 'byTool entry added by the configuration',
    kind: 'agent',
    desired: { policies: { toolCalls: { byTool: { a: 'ask' } } } },
    actual: {},
    expected: [{ path: 'policies.toolCalls.byTool.a', after: 'ask' }],
  },
  {
    name: 'byTool not mentioned',
    kind: 'agent',
    desired: { policies: { toolCalls: { default: 'ask' } } },
    actual: { policies: { toolCalls: { default: 'ask', byTool: { shell: 'allow' } } } },
    expected: [],
  },
  { name: 'set in another order', kind: 'apiKey', desired: { scopes: ['read', 'control'] }, actual: { scopes: ['control', 'read'] }, expected: [] },
  {
    name: 'set with another member',
    kind: 'apiKey',
    desired: { scopes: ['read'] },
    actual: { scopes: ['control'] },
    expected: [{ path: 'scopes', before: ['control'], after: ['read'], forcesReplace: true }],
  },
  {
    name: 'nested set',
    kind: 'agent',
    desired: { sandbox: { tools: { allow: ['a', 'b'] } } },
    actual: { sandbox: { tools: { allow: ['b', 'a'], preset: 'read-only' } } },
    expected: [],
  },
  { name: 'connection hookEvents are a set', kind: 'connection', desired: { hookEvents: ['x', 'y'] }, actual: { hookEvents: ['y', 'x'] }, expected: [] },
  {
    name: 'ordered scalar array',
    kind: 'agent',
    desired: { sandbox: { image: { steps: ['a', 'b'] } } },
    actual: { sandbox: { image: { steps: ['b', 'a'] } } },
    expected: [{ path: 'sandbox.image.steps', before: ['b', 'a'], after: ['a', 'b'] }],
  },
  {
    name: 'array of objects element-wise',
    kind: 'agent',
    desired: {
      tools: [
        { type: 'builtin', name: 'a' },
        { type: 'builtin', name: 'c' },
      ],
    },
    actual: {
      tools: [
        { type: 'builtin', name: 'a' },
        { type: 'builtin', name: 'b', extra: 1 },
      ],
    },
    expected: [{ path: 'tools[1].name', before: 'b', after: 'c' }],
  },
  {
    name: 'element added',
    kind: 'agent',
    desired: { tools: [{ name: 'a' }, { name: 'b' }] },
    actual: { tools: [{ name: 'a' }] },
    expected: [{ path: 'tools[1]', after: { name: 'b' } }],
  },
  {
    name: 'element removed',
    kind: 'agent',
    desired: { tools: [{ name: 'a' }] },
    actual: { tools: [{ name: 'a' }, { name: 'b' }] },
    expected: [{ path: 'tools[1]', before: { name: 'b' } }],
  },
  {
    name: 'default inside array elements',
    kind: 'agent',
    desired: { model: { fallback: { models: [{ provider: 'p', model: 'm', reasoning: null }] } } },
    actual: { model: { fallback: { models: [{ provider: 'p', model: 'm', reasoning: 'none' }] } } },
    expected: [],
  },
  {
    name: 'type change',
    kind: 'agent',
    desired: { limits: { maxTurns: 5 } },
    actual: { limits: 'none' },
    expected: [{ path: 'limits', before: 'none', after: { maxTurns: 5 } }],
  },
  {
    name: 'dotted map keys are quoted',
    kind: 'agent',
    desired: { policies: { toolCalls: { byTool: { 'gh.issue': 'deny' } } } },
    actual: { policies: { toolCalls: { byTool: { 'gh.issue': 'allow' } } } },
    expected: [{ path: 'policies.toolCalls.byTool["gh.issue"]', before: 'allow', after: 'deny' }],
  },
  {
    name: 'apiKey spend forces replace',
    kind: 'apiKey',
    desired: { spend: { dailyUsd: 5 } },
    actual: { spend: { dailyUsd: 3 } },
    expected: [{ path: 'spend.dailyUsd', before: 3, after: 5, forcesReplace: true }],
  },
];

describe('diffSpec', () => {
  it.each(cases)('$name', ({ kind, desired, actual, expected }) => {
    expect(diffSpec(desired, actual, rulesFor(kind))).toEqual(expected);
  });

  // Regression found by the contract property test: a field left to the server that the server
  // did not report still gets the server's default on the next write, so it is listed too.
  it('lists every field left to the server (null), for a write made for another reason', () => {
    const desired = { model: { reasoning: null, fallback: { models: [{ model: 'm', reasoning: null }] } }, description: null, sandbox: { scope: null } };
    const actual = { model: { reasoning: 'high', fallback: { models: [{ model: 'm', reasoning: 'low' }] } }, description: null };
    expect(resetFields(desired, actual)).toEqual([
      { path: 'model.reasoning', before: 'high', after: null, resetToDefault: true },
      { path: 'model.fallback.models[0].reasoning', before: 'low', after: null, resetToDefault: true },
      { path: 'description', after: null, resetToDefault: true },
      { path: 'sandbox.scope', after: null, resetToDefault: true },
    ]);
  });

  it('joins plain and quoted keys', () => {
    expect(joinPath('', 'a')).toBe('a');
    expect(joinPath('a', 'b')).toBe('a.b');
    expect(joinPath('a', 'x y')).toBe('a["x y"]');
  });
});
