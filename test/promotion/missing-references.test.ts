import { describe, expect, it } from 'vitest';
import type { ActualResource, ActualState, DesiredResource, DesiredState, JsonObject, Plan, ResourceKind } from '../../src/model/resources.js';
import {
  describeMissingReference,
  liveNames,
  missingReferences,
  namesByKind,
  refuseOnMissingReferences,
  type MissingReference,
  type NamesByKind,
} from '../../src/promotion/missing-references.js';
import { missingReferencesOfPlan } from '../../src/promotion/planned-references.js';

type Named = Array<[ResourceKind, string]>;
const names = (list: Named): NamesByKind => namesByKind(list.map(([kind, name]) => ({ kind, name })));

const support: JsonObject = {
  model: { provider: 'openai', model: 'gpt-4o', fallback: { models: [{ provider: 'anthropic', model: 'claude' }] } },
  tools: [
    { type: 'builtin', name: 'current_time' },
    { type: 'connection', name: 'everything' },
  ],
  policies: { toolCalls: { hook: { connection: 'crm' } } },
  subagents: [{ kind: 'agent', name: 'r', description: 'd', agent: 'researcher' }],
  sandbox: { connectionName: 'crm', image: { base: 'node:20', secrets: ['npm-token'] } },
};
const researcher: JsonObject = { model: { provider: 'openai', model: 'gpt-4o-mini' } };
const everything: Named = [
  ['provider', 'openai'],
  ['provider', 'anthropic'],
  ['connection', 'everything'],
  ['connection', 'crm'],
  ['agent', 'researcher'],
  ['secret', 'npm-token'],
];

const missing = (agent: string, kind: ResourceKind, name: string, path: string, declared = false): MissingReference => ({ agent, kind, name, path, declared });

describe('missingReferences', () => {
  it.each<{ name: string; definitions: Array<[string, JsonObject]>; present: Named; declared?: Named; unread?: ResourceKind[]; expected: MissingReference[] }>([
    { name: 'nothing is missing when the target has everything', definitions: [['support', support]], present: everything, expected: [] },
    {
      name: 'an empty target lacks every reference, in definition order',
      definitions: [['support', support]],
      present: [],
      expected: [
        missing('support', 'provider', 'openai', 'model.provider'),
        missing('support', 'provider', 'anthropic', 'model.fallback.models[0].provider'),
        missing('support', 'connection', 'crm', 'policies.toolCalls.hook.connection'),
        missing('support', 'connection', 'crm', 'sandbox.connectionName'),
        missing('support', 'connection', 'everything', 'tools[1].name'),
        missing('support', 'agent', 'researcher', 'subagents[0].agent'),
        missing('support', 'secret', 'npm-token', 'sandbox.image.secrets[0]'),
      ],
    },
    {
      name: 'a subagent written in the same run counts as present',
      definitions: [
        ['researcher', researcher],
        ['support', support],
      ],
      present: everything.filter(([kind]) => kind !== 'agent'),
      expected: [],
    },
    {
      name: 'a tools[] connection is checked; a builtin tool is not',
      definitions: [
        [
          'support',
          {
            tools: [
              { type: 'builtin', name: 'everything' },
              { type: 'connection', name: 'everything' },
            ],
          },
        ],
      ],
      present: [],
      expected: [missing('support', 'connection', 'everything', 'tools[1].name')],
    },
    {
      name: 'what the configuration declares but the target does not run is marked declared',
      definitions: [['researcher', researcher]],
      present: [],
      declared: [['provider', 'openai']],
      expected: [missing('researcher', 'provider', 'openai', 'model.provider', true)],
    },
    {
      name: 'a kind the target could not list is unknown, not missing',
      definitions: [['support', support]],
      present: everything.filter(([kind]) => kind !== 'connection'),
      unread: ['connection'],
      expected: [],
    },
    {
      name: 'every agent of the run is checked',
      definitions: [
        ['researcher', researcher],
        ['other', { model: { provider: 'mistral', model: 'm' } }],
      ],
      present: [['provider', 'openai']],
      expected: [missing('other', 'provider', 'mistral', 'model.provider')],
    },
  ])('$name', ({ definitions, present, declared, unread = [], expected }) => {
    const presentNames = new Map(names(present));
    for (const kind of unread) presentNames.delete(kind);
    expect(missingReferences(new Map(definitions), { present: presentNames, ...(declared ? { declared: names(declared) } : {}) })).toEqual(expected);
  });
});

describe('the refusal', () => {
  it('names each missing reference and what it is', () => {
    expect(describeMissingReference(missing('support', 'connection', 'everything', 'tools[0].name'), 'production')).toBe(
      'agent support uses connection everything (tools[0].name), which production does not have',
    );
    expect(describeMissingReference(missing('support', 'provider', 'openai', 'model.provider', true), 'production')).toBe(
      'agent support uses provider openai (model.provider), which production does not have yet: its configuration declares it, apply production first',
    );
  });

  it('throws a plan_refused error listing them, with the way out', () => {
    expect(() => refuseOnMissingReferences([], 'production')).not.toThrow();
    const refuse = () =>
      refuseOnMissingReferences(
        [missing('support', 'connection', 'everything', 'tools[0].name'), missing('support', 'provider', 'openai', 'model.provider', true)],
        'production',
      );
    expect(refuse).toThrow(
      /production lacks what the agents to be written use \(2 references\); nothing was written:\n {2}agent support uses connection everything/,
    );
    try {
      refuse();
    } catch (error) {
      expect(error).toMatchObject({
        code: 'plan_refused',
        hint: 'declare connection everything for production, then apply production (agentform apply -e production) before writing these agents there',
      });
    }
  });
});

describe('liveNames', () => {
  const resource = (kind: ResourceKind, name: string): ActualResource => ({ kind, name, id: `${kind}_${name}`, spec: {}, remote: {}, fingerprint: 'f' });
  it('lists every referenced kind, empty ones too, and leaves out a kind the server does not list', () => {
    const live = liveNames({
      environmentSlug: 'p',
      resources: [resource('provider', 'openai'), resource('grant', 'g')],
      missingOperations: [{ rpc: 'connections.list', consequence: 'x' }],
    });
    expect([...live.entries()].map(([kind, set]) => [kind, [...set]])).toEqual([
      ['secret', []],
      ['provider', ['openai']],
      ['agent', []],
    ]);
  });
});

describe('missingReferencesOfPlan (declarative promotion)', () => {
  const agent = (name: string, spec: JsonObject): DesiredResource => ({ kind: 'agent', name, spec, writeOnly: {}, references: [] });
  const declared = (kind: ResourceKind, name: string): DesiredResource => ({ kind, name, spec: {}, writeOnly: {}, references: [] });
  const live = (kind: ResourceKind, name: string): ActualResource => ({ kind, name, id: name, spec: {}, remote: {}, fingerprint: 'f' });
  const desired = (resources: DesiredResource[]): DesiredState => ({
    projectDir: '/p',
    target: { name: 'production', slug: 'production', url: 'local', prune: true },
    resources,
  });
  const actual = (resources: ActualResource[]): ActualState => ({ environmentSlug: 'production', resources, missingOperations: [] });
  const plan = (changes: Array<[string, string]>): Plan => ({
    formatVersion: 1,
    environment: 'production',
    changes: changes.map(([address, action]) => {
      const [kind, name] = address.split('/') as [ResourceKind, string];
      return { address: `${kind}/${name}`, kind, name, action: action as never, fields: [], dependsOn: [] };
    }),
    order: [],
    summary: { add: 0, change: 0, adopt: 0, replace: 0, destroy: 0, unmanaged: 0 },
    warnings: [],
  });
  const uses = { model: { provider: 'openai', model: 'gpt-4o' }, tools: [{ type: 'connection', name: 'everything' }] };

  it.each<{ name: string; resources: DesiredResource[]; live: ActualResource[]; changes: Array<[string, string]>; promoted: string[]; expected: string[] }>([
    {
      name: 'declared resources count (the apply creates them first)',
      resources: [agent('support', uses), declared('provider', 'openai'), declared('connection', 'everything')],
      live: [],
      changes: [['agent/support', 'create']],
      promoted: ['support'],
      expected: [],
    },
    {
      name: 'live resources the plan keeps count',
      resources: [agent('support', uses)],
      live: [live('provider', 'openai'), live('connection', 'everything')],
      changes: [['agent/support', 'update']],
      promoted: ['support'],
      expected: [],
    },
    {
      name: 'a live resource the plan deletes does not',
      resources: [agent('support', uses), declared('provider', 'openai')],
      live: [live('connection', 'everything')],
      changes: [
        ['agent/support', 'update'],
        ['connection/everything', 'delete'],
      ],
      promoted: ['support'],
      expected: ['connection everything'],
    },
    {
      name: 'neither declared nor live',
      resources: [agent('support', uses)],
      live: [live('provider', 'openai')],
      changes: [['agent/support', 'create']],
      promoted: ['support'],
      expected: ['connection everything'],
    },
    {
      name: 'a promoted agent the plan does not write is not checked',
      resources: [agent('support', uses)],
      live: [],
      changes: [['agent/support', 'no-op']],
      promoted: ['support'],
      expected: [],
    },
    {
      name: 'an agent that is not promoted is left to the configuration check',
      resources: [agent('support', uses)],
      live: [],
      changes: [['agent/support', 'create']],
      promoted: [],
      expected: [],
    },
  ])('$name', ({ resources, live: liveResources, changes, promoted, expected }) => {
    const found = missingReferencesOfPlan(desired(resources), actual(liveResources), plan(changes), promoted);
    expect(found.map((item) => `${item.kind} ${item.name}`)).toEqual(expected);
  });
});
