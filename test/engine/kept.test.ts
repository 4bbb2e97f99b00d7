import { describe, expect, it } from 'vitest';
import { keptFields } from '../../src/engine/kept.js';
import type { JsonObject, KeptField, ResourceKind } from '../../src/model/resources.js';

type Case = { name: string; kind: ResourceKind; desired: JsonObject; remote: JsonObject; expected: KeptField[] };

const cases: Case[] = [
  {
    name: 'a permissive byTool entry added out of band',
    kind: 'agent',
    desired: { policies: {} },
    remote: { policies: { toolCalls: { byTool: { shell: 'allow' } } } },
    expected: [{ path: 'policies.toolCalls.byTool', value: { shell: 'allow' } }],
  },
  {
    name: 'byTool managed by the configuration',
    kind: 'agent',
    desired: { policies: { toolCalls: { byTool: {} } } },
    remote: { policies: { toolCalls: { byTool: { shell: 'allow' } } } },
    expected: [],
  },
  {
    name: 'a sandbox the configuration does not mention: one line',
    kind: 'agent',
    desired: {},
    remote: { sandbox: { scope: 'tree', tools: { preset: 'full', deny: [] } } },
    expected: [{ path: 'sandbox', value: { tools: { preset: 'full' } } }],
  },
  {
    name: 'a sandbox of known defaults still exists',
    kind: 'agent',
    desired: {},
    remote: { sandbox: { scope: 'tree' } },
    expected: [{ path: 'sandbox', value: {} }],
  },
  {
    name: 'a partly configured sandbox: the finer fields it leaves out',
    kind: 'agent',
    desired: { sandbox: { tools: { allow: ['grep'] } } },
    remote: { sandbox: { tools: { allow: ['grep'], deny: ['rm'], preset: 'read-only' } } },
    expected: [{ path: 'sandbox.tools.deny', value: ['rm'] }],
  },
  { name: 'null is managed (left to the server)', kind: 'agent', desired: { identity: null }, remote: { identity: { required: true } }, expected: [] },
  {
    name: 'identity at known defaults is not shown',
    kind: 'agent',
    desired: {},
    remote: { identity: { required: false, switchable: false, scopesAllowed: [] } },
    expected: [],
  },
  {
    name: 'identity added out of band',
    kind: 'agent',
    desired: {},
    remote: { identity: { required: true, switchable: false, scopesAllowed: [] } },
    expected: [{ path: 'identity', value: { required: true } }],
  },
  {
    name: 'a hook and a default decision',
    kind: 'agent',
    desired: {},
    remote: { policies: { toolCalls: { default: 'ask', hook: { connection: 'crm' }, onError: 'allow' } } },
    expected: [
      { path: 'policies.toolCalls.default', value: 'ask' },
      { path: 'policies.toolCalls.hook', value: { connection: 'crm' } },
    ],
  },
  {
    name: 'environment spend caps',
    kind: 'environment',
    desired: { name: 'S' },
    remote: { name: 'S', spend: { dailyUsd: 5 } },
    expected: [{ path: 'spend', value: { dailyUsd: 5 } }],
  },
  {
    name: 'environment spend caps partly configured',
    kind: 'environment',
    desired: { spend: { dailyUsd: 5 } },
    remote: { spend: { dailyUsd: 5, tokensPerMonth: 9 } },
    expected: [{ path: 'spend.tokensPerMonth', value: 9 }],
  },
  { name: 'empty spend', kind: 'environment', desired: {}, remote: { spend: {} }, expected: [] },
  { name: 'kinds without safety fields', kind: 'provider', desired: {}, remote: { baseUrl: 'https://x' }, expected: [] },
];

describe('keptFields', () => {
  it.each(cases)('$name', ({ kind, desired, remote, expected }) => {
    expect(keptFields(kind, desired, remote)).toEqual(expected);
  });
});
