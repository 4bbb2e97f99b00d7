import { describe, expect, it } from 'vitest';
import { PlanError } from '../../src/engine/errors.js';
import { computePlan, type PlanOptions } from '../../src/engine/plan.js';
import { remoteFingerprint } from '../../src/engine/remote-fingerprint.js';
import type { ActualResource, DesiredResource, Plan } from '../../src/model/resources.js';
import { actual, actualState, agentSpec, desired, desiredState } from './builders.js';

function plan(want: DesiredResource[], have: ActualResource[], options: Partial<PlanOptions> = {}, missing: Plan['warnings'] = []): Plan {
  return computePlan(
    desiredState(want),
    actualState(
      have,
      missing.map((rpc) => ({ rpc, consequence: 'agents cannot be planned' })),
    ),
    { prune: false, ...options },
  );
}

const actions = (result: Plan) => Object.fromEntries(result.changes.map((change) => [change.address, change.action]));

describe('computePlan actions', () => {
  const cases: Array<{ name: string; want: DesiredResource[]; have: ActualResource[]; options?: Partial<PlanOptions>; expected: Record<string, string> }> = [
    { name: 'create', want: [desired('provider', 'openai', { type: 'openai' })], have: [], expected: { 'provider/openai': 'create' } },
    {
      name: 'no-op',
      want: [desired('provider', 'openai', { type: 'openai' })],
      have: [actual('provider', 'openai', { type: 'openai', baseUrl: 'x' })],
      expected: { 'provider/openai': 'no-op' },
    },
    {
      name: 'update',
      want: [desired('provider', 'openai', { type: 'openai' })],
      have: [actual('provider', 'openai', { type: 'azure' })],
      expected: { 'provider/openai': 'update' },
    },
    {
      name: 'replace (apiKey scopes)',
      want: [desired('apiKey', 'ci', { scopes: ['read'] })],
      have: [actual('apiKey', 'ci', { scopes: ['control'] })],
      expected: { 'apiKey/ci': 'replace' },
    },
    { name: 'unmanaged without prune', want: [], have: [actual('agent', 'old', agentSpec())], expected: { 'agent/old': 'unmanaged' } },
    {
      name: 'delete with prune',
      want: [desired('agent', 'a', agentSpec())],
      have: [actual('agent', 'a', agentSpec()), actual('agent', 'old', agentSpec())],
      options: { prune: true },
      expected: { 'agent/a': 'no-op', 'agent/old': 'delete' },
    },
    {
      name: 'undeclared API keys are left alone with prune',
      want: [desired('apiKey', 'app', { scopes: ['read'] })],
      have: [
        actual('apiKey', 'app', { scopes: ['read'] }),
        actual('apiKey', 'ci-read', { scopes: ['read'] }),
        actual('agent', 'old', agentSpec()),
        actual('agent', 'a', agentSpec()),
      ],
      options: { prune: true, allowMassDelete: true },
      expected: { 'apiKey/app': 'no-op', 'apiKey/ci-read': 'unmanaged', 'agent/old': 'delete', 'agent/a': 'delete' },
    },
    {
      name: 'undeclared API keys are revoked with prune and pruneApiKeys',
      want: [desired('apiKey', 'app', { scopes: ['read'] })],
      have: [actual('apiKey', 'app', { scopes: ['read'] }), actual('apiKey', 'ci-read', { scopes: ['read'] })],
      options: { prune: true, pruneApiKeys: true },
      expected: { 'apiKey/app': 'no-op', 'apiKey/ci-read': 'delete' },
    },
    {
      name: 'pruneApiKeys alone deletes nothing',
      want: [],
      have: [actual('apiKey', 'ci-read', { scopes: ['read'] })],
      options: { pruneApiKeys: true },
      expected: { 'apiKey/ci-read': 'unmanaged' },
    },
    {
      name: 'containers are never unmanaged or deleted',
      want: [],
      have: [actual('organization', 'current', { name: 'o' }), actual('environment', 'staging', {})],
      options: { prune: true },
      expected: {},
    },
  ];
  it.each(cases)('$name', ({ want, have, options, expected }) => {
    expect(actions(plan(want, have, options))).toEqual(expected);
  });

  it('counts the summary and orders creates before deletes', () => {
    const result = plan(
      [
        desired('provider', 'p', { type: 'x' }),
        desired('agent', 'a', agentSpec('new'), { references: [{ kind: 'provider', name: 'p', path: 'model.provider' }] }),
      ],
      [actual('agent', 'a', agentSpec('old')), actual('secret', 's1'), actual('secret', 's2'), actual('secret', 'keep'), actual('agent', 'b', agentSpec())],
      { prune: true, allowMassDelete: true },
    );
    expect(result.summary).toEqual({ add: 1, change: 1, adopt: 0, replace: 0, destroy: 4, unmanaged: 0 });
    expect(result.order).toEqual(['provider/p', 'agent/a', 'agent/b', 'secret/keep', 'secret/s1', 'secret/s2']);
    expect(result.changes.find((change) => change.address === 'agent/a')?.dependsOn).toEqual(['provider/p']);
  });

  it('lists the created fields and write-only values without a value', () => {
    const result = plan(
      [desired('provider', 'p', { type: 'openai', baseUrl: null }, { writeOnly: { secret: { source: '${env:K}', value: 'SENTINEL' } } })],
      [],
    );
    expect(result.changes[0]!.fields).toEqual([
      { path: 'type', after: 'openai' },
      { path: 'secret', writeOnly: true },
    ]);
    expect(JSON.stringify(result)).not.toContain('SENTINEL');
  });

  it('carries the id and fingerprint of the remote object: of what the change depends on, for a configured one', () => {
    const remote = actual('provider', 'p', { type: 'a' });
    const want = desired('provider', 'p', { type: 'b' });
    const change = plan([want], [remote]).changes[0]!;
    expect(change).toMatchObject({
      id: remote.id,
      remoteFingerprint: remoteFingerprint(remote, want.spec),
      fields: [{ path: 'type', before: 'a', after: 'b' }],
    });
    const deleted = plan([], [remote], { prune: true }).changes[0]!;
    expect(deleted).toMatchObject({ action: 'delete', remoteFingerprint: remote.fingerprint });
  });

  it('no-op changes read the fingerprint through one getter, after `id` in key order, the remote object left out of JSON', () => {
    const remotes = [actual('provider', 'p', { type: 'a' }), actual('provider', 'q', { type: 'b' })];
    const wants = [desired('provider', 'p', { type: 'a' }), desired('provider', 'q', { type: 'b' })];
    const changes = plan(wants, remotes).changes;
    expect(changes.map((change) => change.action)).toEqual(['no-op', 'no-op']);
    // A getter per change gave every change a hidden class of its own (~600 bytes more per resource).
    expect(Object.getOwnPropertyDescriptor(changes[0], 'remoteFingerprint')?.get).toBe(Object.getOwnPropertyDescriptor(changes[1], 'remoteFingerprint')?.get);
    const expected = remotes.map((remote, index) => remoteFingerprint(remote, wants[index]!.spec));
    expect(changes.map((change) => change.remoteFingerprint)).toEqual(expected);
    expect(Object.keys(changes[0]!)).toEqual(['address', 'kind', 'name', 'action', 'fields', 'dependsOn', 'id', 'remoteFingerprint']);
    expect(JSON.parse(JSON.stringify(changes[1]))).toMatchObject({ id: remotes[1]!.id, remoteFingerprint: expected[1] });
    expect(JSON.stringify(changes[0])).not.toContain('"remote"');
  });

  // Regression: updates and replaces were copies of the no-op change (`{ ...base }`), whose spread
  // read the getter, hashing the remote object of every changed resource (and loading node:crypto)
  // in a plan that never needs them.
  it.each([
    ['update', desired('provider', 'p', { type: 'b' }), 'update'],
    ['replace', desired('apiKey', 'ci', { scopes: ['read'] }), 'replace'],
  ] as const)('leaves the fingerprint of an %s to be worked out on first read', (_name, want, action) => {
    const remote = actual(want.kind, want.name, want.kind === 'apiKey' ? { scopes: ['control'] } : { type: 'a' }, { updatedAt: 't' });
    const fingerprint = remoteFingerprint(remote, want.spec);
    // Hashing reads the write marks; the plan itself has no use for this one.
    let hashed = 0;
    Object.defineProperty(remote.remote, 'updatedAt', {
      enumerable: true,
      get: () => {
        hashed += 1;
        return 't';
      },
    });
    const change = plan([want], [remote]).changes[0]!;
    expect(change.action).toBe(action);
    expect(hashed).toBe(0);
    expect(change.remoteFingerprint).toBe(fingerprint);
    expect(JSON.parse(JSON.stringify(change))).toMatchObject({ action, remoteFingerprint: fingerprint });
    expect(hashed).toBeGreaterThan(0);
  });
});

describe('write-only values and rotation', () => {
  const secret = (rotatedAt?: string) => desired('secret', 's', {}, { writeOnly: { value: { source: '${env:S}', ...(rotatedAt ? { rotatedAt } : {}) } } });
  const remote = actual('secret', 's', {}, { updatedAt: '2024-05-01T12:00:00Z' });

  it.each([
    { name: 'no marker: no change', marker: undefined, action: 'no-op' },
    { name: 'marker older than the last write', marker: '2024-05-01T11:00:00Z', action: 'no-op' },
    { name: 'marker as a date older', marker: '2024-04-30', action: 'no-op' },
    { name: 'marker newer than the last write', marker: '2024-05-02', action: 'update' },
  ])('$name', ({ marker, action }) => {
    const change = plan([secret(marker)], [remote]).changes[0]!;
    expect(change.action).toBe(action);
    if (action === 'update') {
      expect(change.fields).toEqual([{ path: 'value', writeOnly: true }]);
      expect(change.reason).toContain('rotation marker 2024-05-02 of value is newer than the last write');
    }
  });

  it('sends write-only values again with any other update', () => {
    const provider = desired('provider', 'p', { type: 'b' }, { writeOnly: { secret: { source: '${env:K}' } } });
    const change = plan([provider], [actual('provider', 'p', { type: 'a' })]).changes[0]!;
    expect(change.fields).toEqual([
      { path: 'type', before: 'a', after: 'b' },
      { path: 'secret', writeOnly: true },
    ]);
  });

  it('warns when the server does not say when it last wrote', () => {
    const result = plan([secret('2030-01-01')], [actual('secret', 's')]);
    expect(result.changes[0]!.action).toBe('no-op');
    expect(result.warnings[0]).toMatch(/cannot be honoured/);
  });
});

describe('refusals', () => {
  it('protect: never replace', () => {
    expect(() => plan([desired('apiKey', 'ci', { scopes: ['read'] }, { protect: true })], [actual('apiKey', 'ci', { scopes: ['control'] })])).toThrow(
      /apiKey\/ci is protected and would be replaced: scopes cannot change in place/,
    );
  });

  it('protect: a plan that is only read (drift) reports the replace with a warning instead', () => {
    const result = plan([desired('apiKey', 'ci', { scopes: ['read'] }, { protect: true })], [actual('apiKey', 'ci', { scopes: ['control'] })], {
      reportProtected: true,
    });
    expect(result.changes.find((change) => change.address === 'apiKey/ci')?.action).toBe('replace');
    expect(result.warnings).toContainEqual(expect.stringMatching(/apiKey\/ci is protected: a plan that writes refuses to replace it/));
  });

  it('environment kind cannot change', () => {
    expect(() => plan([desired('environment', 'staging', { kind: 'production' })], [actual('environment', 'staging', { kind: 'preview' })])).toThrow(
      /environment\/staging: kind cannot change/,
    );
  });

  it('a dependency cycle names the cycle', () => {
    const ref = (name: string) => [{ kind: 'agent' as const, name, path: 'subagents[0].agent' }];
    const run = () => plan([desired('agent', 'a', agentSpec(), { references: ref('b') }), desired('agent', 'b', agentSpec(), { references: ref('a') })], []);
    expect(run).toThrow(PlanError);
    expect(run).toThrow(/dependency cycle: agent\/a → agent\/b → agent\/a/);
  });

  const many = (kind: 'agent' | 'secret', count: number) => Array.from({ length: count }, (_, i) => actual(kind, `${kind}${i}`));
  it.each([
    {
      name: 'a whole kind of ≥ 2',
      have: [...many('secret', 2), ...many('agent', 6)],
      want: many('agent', 6).map((a) => desired('agent', a.name)),
      error: /every secret in the environment \(2 of 2\)/,
    },
    {
      name: 'more than half the environment',
      have: [...many('secret', 4), ...many('agent', 4)],
      want: [desired('secret', 'secret0'), desired('agent', 'agent0'), desired('agent', 'agent1')],
      error: /5 of the 8 resources in the environment \(more than 50%\)/,
    },
  ])('mass-delete guard: $name', ({ have, want, error }) => {
    expect(() => plan(want, have, { prune: true })).toThrow(error);
    expect(() => plan(want, have, { prune: true })).toThrow(/--allow-mass-delete/);
    expect(() => plan(want, have, { prune: true, allowMassDelete: true })).not.toThrow();
  });

  it('mass-delete guard under a scope: says the share is of what the plan may touch', () => {
    const have = [...many('secret', 4), ...many('agent', 4)];
    const want = [desired('secret', 'secret0'), desired('agent', 'agent0'), desired('agent', 'agent1')];
    expect(() => plan(want, have, { prune: true, scoped: true })).toThrow(
      /refusing to delete 5 of the 8 resources this plan may touch \(more than 50%; owns:, forget: and --exclude leave the rest of the environment out\)/,
    );
    const secrets = [...many('secret', 2), ...many('agent', 6)];
    expect(() =>
      plan(
        many('agent', 6).map((a) => desired('agent', a.name)),
        secrets,
        { prune: true, scoped: true },
      ),
    ).toThrow(/refusing to delete every secret this plan may touch \(2 of 2; owns:, forget: and --exclude leave/);
  });

  it('mass-delete guard: a single delete is fine, and the share is configurable', () => {
    expect(() => plan([], [actual('agent', 'only')], { prune: true })).not.toThrow();
    const have = [...many('agent', 4), ...many('secret', 1)];
    const want = [desired('agent', 'agent0'), desired('agent', 'agent1')];
    expect(() => plan(want, have, { prune: true })).toThrow(/3 of the 5/);
    expect(() => plan(want, have, { prune: true, maxDeleteShare: 0.8 })).not.toThrow();
  });
});

describe('targets', () => {
  const provider = desired('provider', 'p', { type: 'x' });
  const secret = desired('secret', 's');
  const agent = desired('agent', 'a', agentSpec(), { references: [{ kind: 'provider', name: 'p', path: 'model.provider' }] });
  const other = desired('agent', 'b', agentSpec());

  it('limits the plan to the targets and their transitive dependencies', () => {
    const result = plan([secret, provider, agent, other], [actual('agent', 'gone')], { targets: ['agent/a'], prune: true });
    expect(result.changes.map((change) => change.address)).toEqual(['provider/p', 'agent/a']);
  });

  it('can target a remote-only resource for deletion', () => {
    const result = plan([other], [actual('agent', 'gone')], { targets: ['agent/gone'], prune: true });
    expect(actions(result)).toEqual({ 'agent/gone': 'delete' });
  });

  it('rejects an unknown target', () => {
    expect(() => plan([other], [], { targets: ['agent/nope'] })).toThrow(/--target agent\/nope: no such resource/);
  });
});

describe('promotion and missing reads', () => {
  it('carries the promotion reason', () => {
    const result = plan([desired('agent', 'a', agentSpec(), { promotion: { fromEnvironment: 'staging', version: 3 } })], []);
    expect(result.changes[0]!.reason).toBe('promoted from staging v3');
  });

  it('leaves a kind whose read operation is missing unplanned, with a warning', () => {
    const result = plan([desired('agent', 'a', agentSpec()), desired('secret', 's')], [], {}, ['agents.list']);
    expect(actions(result)).toEqual({ 'secret/s': 'create' });
    expect(result.warnings).toEqual(['the server does not offer agents.list: agents cannot be planned']);
  });
});

describe('fields the configuration does not mention, and null', () => {
  it('a null field alone is no change, whatever the remote value; kept values show on a no-op', () => {
    const result = plan(
      [desired('agent', 'a', { ...agentSpec(), model: { provider: 'openai', model: 'gpt-4o', reasoning: null } })],
      [actual('agent', 'a', { ...agentSpec(), model: { provider: 'openai', model: 'gpt-4o', reasoning: 'high' }, sandbox: { tools: { deny: ['rm'] } } })],
    );
    expect(result.changes[0]).toMatchObject({ action: 'no-op', fields: [], kept: [{ path: 'sandbox', value: { tools: { deny: ['rm'] } } }] });
    expect(result.summary.change).toBe(0);
  });

  it('a write made for another reason lists the null fields as reset to the server default', () => {
    const result = plan(
      [desired('agent', 'a', { ...agentSpec('gpt-4o-mini'), model: { provider: 'openai', model: 'gpt-4o-mini', reasoning: null } })],
      [actual('agent', 'a', { ...agentSpec(), model: { provider: 'openai', model: 'gpt-4o', reasoning: 'high' } })],
    );
    expect(result.changes[0]?.fields).toEqual([
      { path: 'model.model', before: 'gpt-4o', after: 'gpt-4o-mini' },
      { path: 'model.reasoning', before: 'high', after: null, resetToDefault: true },
    ]);
  });
});
