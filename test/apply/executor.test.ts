import { describe, expect, it } from 'vitest';
import { applyPlan, type ApplyOptions } from '../../src/apply/executor.js';
import type { ApplyEvent } from '../../src/apply/events.js';
import type { RequestOf, ResponseOf, Rpc, RpcCaller } from '../../src/api/operations.js';
import { ApiError } from '../../src/errors.js';
import type { ActualResource, DesiredResource, DesiredState, Plan, ResourceChange, ResourceKind } from '../../src/model/resources.js';
import { addressOf } from '../../src/model/resources.js';
import { remoteFingerprint } from '../../src/engine/remote-fingerprint.js';

/** A fake caller: records every call and answers from per-RPC handlers. A unit boundary, not a server. */
function fakeCaller(handlers: Partial<{ [R in Rpc]: (request: RequestOf<R>) => ResponseOf<R> }> = {}) {
  const calls: Array<{ rpc: Rpc; request: unknown }> = [];
  let next = 0;
  const caller: RpcCaller = {
    async call(rpc, request) {
      calls.push({ rpc, request });
      await new Promise((resolve) => setTimeout(resolve, 1));
      const handler = handlers[rpc] as ((request: unknown) => unknown) | undefined;
      if (handler) return handler(request) as never;
      next += 1;
      if (rpc === 'apiKeys.create') return { key: { id: `key-${next}`, name: 'k', scopes: [] }, token: 'svc_dev_SENTINELTOKEN' } as never;
      if (rpc === 'agents.upsert') return { agentId: `agent-${next}`, version: 1, definition: {} } as never;
      if (rpc === 'connections.grants.import') return { results: [{ identity: { scope: 's', id: 'i' }, outcome: 'created', grantId: `g-${next}` }] } as never;
      if (rpc === 'connections.test') return { tools: [{ name: 'echo' }, { name: 'add' }] } as never;
      return { id: `id-${next}` } as never;
    },
  };
  return { caller, calls };
}

function resource(kind: ResourceKind, name: string, spec: DesiredResource['spec'], extra: Partial<DesiredResource> = {}): DesiredResource {
  return { kind, name, spec, writeOnly: {}, references: [], ...extra };
}

function change(kind: ResourceKind, name: string, action: ResourceChange['action'], extra: Partial<ResourceChange> = {}): ResourceChange {
  return { address: addressOf(kind, name), kind, name, action, fields: [], dependsOn: [], ...extra };
}

function planOf(changes: ResourceChange[]): Plan {
  return {
    formatVersion: 1,
    environment: 'dev',
    changes,
    order: changes.map((c) => c.address),
    summary: { add: 0, change: 0, adopt: 0, replace: 0, destroy: 0, unmanaged: 0 },
    warnings: [],
  };
}

function desiredOf(resources: DesiredResource[]): DesiredState {
  return { projectDir: '/nowhere', target: { name: 'dev', slug: 'dev', url: 'local', prune: true }, resources };
}

function actualResource(
  kind: ResourceKind,
  name: string,
  id: string,
  spec: DesiredResource['spec'] = {},
  remote: DesiredResource['spec'] = {},
): ActualResource {
  return { kind, name, id, spec, remote, fingerprint: remoteFingerprint({ kind, id, spec, remote }) };
}

/** What the plan records of `remote` for a change of `desired` (a delete: none). */
function planned(remote: ActualResource, desired?: DesiredResource): string {
  return remoteFingerprint(remote, desired?.spec);
}

/** A re-read before the writes that finds these resources. */
function rereadFinding(...resources: ActualResource[]): ApplyOptions['reread'] {
  return async (kind) => new Map(resources.filter((resource) => resource.kind === kind).map((resource) => [resource.name, resource]));
}

const baseOptions = (events: ApplyEvent[] = []): ApplyOptions => ({
  parallelism: 4,
  reread: async () => new Map(),
  saveToken: async () => undefined,
  onEvent: (event) => events.push(event),
});

describe('applyPlan', () => {
  it('creates in dependency order and hands created ids to dependents', async () => {
    const { caller, calls } = fakeCaller({ 'connections.create': () => ({ id: 'conn-1', name: 'gh', auth: { type: 'none' } }) });
    const desired = desiredOf([
      resource('connection', 'gh', { auth: { type: 'none' } }),
      resource(
        'grant',
        'gh:user:alice',
        { connection: 'gh', identity: { scope: 'user', id: 'alice' } },
        {
          writeOnly: { accessToken: { source: '${env:T}', value: 'tok' } },
        },
      ),
    ]);
    const plan = planOf([change('grant', 'gh:user:alice', 'create', { dependsOn: ['connection/gh'] }), change('connection', 'gh', 'create')]);
    const result = await applyPlan(plan, desired, { environmentSlug: 'dev', resources: [], missingOperations: [] }, { caller }, baseOptions());
    expect(calls.map((c) => c.rpc)).toEqual(['connections.create', 'connections.grants.import']);
    expect(calls[1].request).toEqual({
      connectionId: 'conn-1',
      mode: 'skip_existing',
      grants: [{ identity: { scope: 'user', id: 'alice' }, accessToken: 'tok' }],
    });
    expect(result.counts).toEqual({ added: 2, changed: 0, adopted: 0, replaced: 0, destroyed: 0 });
  });

  it('deletes only after the later kinds are written, in reverse kind order', async () => {
    const { caller, calls } = fakeCaller();
    const desired = desiredOf([resource('agent', 'bot', { model: { provider: 'new', model: 'm' } })]);
    const actual = {
      environmentSlug: 'dev',
      resources: [actualResource('provider', 'old', 'p-old'), actualResource('agent', 'bot', 'a1')],
      missingOperations: [],
    };
    const [old, bot] = actual.resources as [ActualResource, ActualResource];
    const plan = planOf([
      change('provider', 'old', 'delete', { remoteFingerprint: planned(old) }),
      change('agent', 'bot', 'update', { remoteFingerprint: planned(bot, desired.resources[0]) }),
    ]);
    const options = { ...baseOptions(), reread: rereadFinding(old, bot) };
    await applyPlan(plan, desired, actual, { caller }, options);
    expect(calls.map((c) => c.rpc)).toEqual(['agents.upsert', 'providers.delete']);
  });

  it('refuses to write a resource that changed since the plan, and carries on with the rest', async () => {
    const { caller, calls } = fakeCaller();
    const events: ApplyEvent[] = [];
    const desired = desiredOf([
      resource('provider', 'p', { type: 'openai' }),
      resource('secret', 's', {}, { writeOnly: { value: { source: 'x', value: 'v' } } }),
    ]);
    const before = actualResource('provider', 'p', 'p1', { type: 'azure' });
    const actual = { environmentSlug: 'dev', resources: [before], missingOperations: [] };
    const plan = planOf([change('provider', 'p', 'update', { remoteFingerprint: planned(before, desired.resources[0]) }), change('secret', 's', 'create')]);
    const edited = actualResource('provider', 'p', 'p1', { type: 'mistral' });
    const result = await applyPlan(plan, desired, actual, { caller }, { ...baseOptions(events), reread: rereadFinding(edited) });
    expect(result.failed).toEqual([{ address: 'provider/p', action: 'update', code: 'changed_since_plan', message: 'provider/p changed since plan' }]);
    expect(calls.map((c) => c.rpc)).toEqual(['secrets.create']);
  });

  it('skips what depends on a failure and applies independent resources', async () => {
    const { caller, calls } = fakeCaller({
      'providers.create': () => {
        throw new ApiError('providers.create', 400, 'invalid_argument', 'type is not known');
      },
    });
    const desired = desiredOf([
      resource('provider', 'bad', { type: 'nope' }),
      resource('agent', 'uses-bad', { model: { provider: 'bad', model: 'm' } }),
      resource('secret', 'fine', {}, { writeOnly: { value: { source: 'x', value: 'v' } } }),
    ]);
    const plan = planOf([
      change('provider', 'bad', 'create'),
      change('agent', 'uses-bad', 'create', { dependsOn: ['provider/bad'] }),
      change('secret', 'fine', 'create'),
    ]);
    const result = await applyPlan(plan, desired, { environmentSlug: 'dev', resources: [], missingOperations: [] }, { caller }, baseOptions());
    expect(result.failed).toEqual([{ address: 'provider/bad', action: 'create', code: 'invalid_argument', message: 'providers.create: type is not known' }]);
    expect(result.skipped).toEqual([{ address: 'agent/uses-bad', action: 'create', reason: 'depends on provider/bad' }]);
    expect(calls.map((c) => c.rpc).sort()).toEqual(['providers.create', 'secrets.create']);
  });

  it('gives the same outcome whether or not the connection was created in this run; sandbox tools are not connection tools', async () => {
    // Policies name a tool the connection does not offer (ecko) and sandbox tools (grep, rm). Run 1
    // creates the connection (and so learns its tools); run 2 finds it existing. Both must upsert.
    const definition = {
      model: { provider: 'p', model: 'm' },
      system: 's',
      tools: [{ type: 'builtin', name: 'current_time' }],
      policies: { toolCalls: { hook: { connection: 'tools' }, byTool: { echo: 'allow', ecko: 'allow' } } },
      sandbox: { connectionName: 'tools', tools: { allow: ['grep'], deny: ['rm'] } },
      limits: {},
    };
    const desired = desiredOf([
      resource('connection', 'tools', { url: 'http://127.0.0.1:1/mcp', auth: { type: 'none' } }),
      resource('agent', 'bot', definition),
    ]);
    const noRemote = { environmentSlug: 'dev', resources: [], missingOperations: [] };
    const first = fakeCaller({ 'connections.create': () => ({ id: 'c1', name: 'tools', auth: { type: 'none' } }) });
    const run1 = await applyPlan(
      planOf([change('connection', 'tools', 'create'), change('agent', 'bot', 'create', { dependsOn: ['connection/tools'] })]),
      desired,
      noRemote,
      { caller: first.caller },
      baseOptions(),
    );
    const second = fakeCaller();
    const bot = actualResource('agent', 'bot', 'a1');
    const existing = { environmentSlug: 'dev', resources: [actualResource('connection', 'tools', 'c1'), bot], missingOperations: [] };
    const run2 = await applyPlan(
      planOf([change('agent', 'bot', 'update', { dependsOn: ['connection/tools'], remoteFingerprint: planned(bot, desired.resources[1]) })]),
      desired,
      existing,
      { caller: second.caller },
      {
        ...baseOptions(),
        reread: rereadFinding(bot),
      },
    );
    expect(run1.failed).toEqual([]);
    expect(run2.failed).toEqual([]);
    expect(first.calls.map((c) => c.rpc)).toEqual(['connections.create', 'connections.test', 'agents.upsert']);
    expect(second.calls.map((c) => c.rpc)).toEqual(['agents.upsert']);
  });

  it('replaces an API key by creating the new one first, saving its token, then revoking the old one', async () => {
    const { caller, calls } = fakeCaller();
    const saved: string[] = [];
    const desired = desiredOf([resource('apiKey', 'ci', { scopes: ['read'] }, { options: { tokenFile: 'ci.token' } })]);
    const oldKey = actualResource('apiKey', 'ci', 'old-key');
    const actual = { environmentSlug: 'dev', resources: [oldKey], missingOperations: [] };
    const plan = planOf([change('apiKey', 'ci', 'replace', { remoteFingerprint: planned(oldKey, desired.resources[0]) })]);
    const result = await applyPlan(
      plan,
      desired,
      actual,
      { caller },
      {
        ...baseOptions(),
        reread: rereadFinding(oldKey),
        saveToken: async (_resource, token) => {
          saved.push(token);
          return 'ci.token';
        },
      },
    );
    expect(calls.map((c) => c.rpc)).toEqual(['apiKeys.create', 'apiKeys.revoke']);
    expect(calls[1].request).toEqual({ id: 'old-key' });
    expect(saved).toEqual(['svc_dev_SENTINELTOKEN']);
    expect(JSON.stringify(result)).not.toContain('SENTINEL');
    expect(result.counts.replaced).toBe(1);
  });

  it('sends agent definitions without explicit nulls (null = server default) and with promotedFrom', async () => {
    const { caller, calls } = fakeCaller();
    const desired = desiredOf([
      resource(
        'agent',
        'bot',
        { model: { provider: 'p', model: 'm', reasoning: null }, system: 's', tools: [], policies: {}, limits: {} },
        {
          options: { promotedFrom: { environmentId: 'env-s', agentId: 'a-s', version: 3 } },
        },
      ),
    ]);
    await applyPlan(
      planOf([change('agent', 'bot', 'create')]),
      desired,
      { environmentSlug: 'dev', resources: [], missingOperations: [] },
      { caller },
      baseOptions(),
    );
    expect(calls[0].request).toEqual({
      slug: 'bot',
      definition: { name: 'bot', model: { provider: 'p', model: 'm' }, system: 's', tools: [], policies: {}, limits: {} },
      promotedFrom: { environmentId: 'env-s', agentId: 'a-s', version: 3 },
    });
  });

  it('waits for the image to bake and fails the run when baking fails', async () => {
    let polls = 0;
    const { caller } = fakeCaller({
      'agents.get': () => {
        polls += 1;
        return {
          slug: 'bot',
          agentId: 'a',
          version: 1,
          definition: {} as never,
          image: polls < 3 ? { status: 'baking' } : { status: 'failed', error: 'step 2: FAIL' },
        };
      },
    });
    const desired = desiredOf([resource('agent', 'bot', { system: 's' })]);
    const result = await applyPlan(
      planOf([change('agent', 'bot', 'create')]),
      desired,
      { environmentSlug: 'dev', resources: [], missingOperations: [] },
      { caller },
      {
        ...baseOptions(),
        waitForImages: true,
        imagePollMs: 1,
      },
    );
    expect(polls).toBe(3);
    expect(result.failed[0].message).toContain('step 2: FAIL');
  });

  it('makes no calls for a plan without changes', async () => {
    const { caller, calls } = fakeCaller();
    const result = await applyPlan(
      planOf([change('agent', 'bot', 'no-op'), change('agent', 'x', 'unmanaged')]),
      desiredOf([]),
      { environmentSlug: 'dev', resources: [], missingOperations: [] },
      { caller },
      baseOptions(),
    );
    expect(calls).toEqual([]);
    expect(result.done).toEqual([]);
  });
});

describe('applyPlan with an unreachable tool server', () => {
  it('keeps the created connection, notes that the tool server was not reachable, and still applies its agents', async () => {
    const { caller, calls } = fakeCaller({
      'connections.create': () => ({ id: 'c1', name: 'tools', auth: { type: 'none' } }),
      'connections.test': () => {
        throw new ApiError('connections.test', 409, 'failed_precondition', 'could not reach MCP server at http://127.0.0.1:9/mcp');
      },
    });
    const desired = desiredOf([
      resource('connection', 'tools', { url: 'http://127.0.0.1:9/mcp', auth: { type: 'none' } }),
      resource('agent', 'bot', {
        system: 's',
        tools: [],
        policies: { toolCalls: { hook: { connection: 'tools' }, byTool: { anything: 'allow' } } },
        limits: {},
      }),
    ]);
    const plan = planOf([change('connection', 'tools', 'create'), change('agent', 'bot', 'create', { dependsOn: ['connection/tools'] })]);
    const result = await applyPlan(plan, desired, { environmentSlug: 'dev', resources: [], missingOperations: [] }, { caller }, baseOptions());
    expect(result.failed).toEqual([]);
    expect(result.done.find((item) => item.address === 'connection/tools')?.note).toContain('tool server not reachable');
    expect(calls.map((c) => c.rpc)).toEqual(['connections.create', 'connections.test', 'agents.upsert']);
  });
});

describe("applyPlan and a connection's tools list", () => {
  it('asks connections.test once, after the write; dependents start without waiting for its answer; the note and the tools are kept', async () => {
    let answerTools!: () => void;
    const toolsAnswered = new Promise<void>((resolve) => (answerTools = resolve));
    const calls: Rpc[] = [];
    const caller: RpcCaller = {
      async call(rpc) {
        calls.push(rpc);
        if (rpc === 'connections.create') return { id: 'c1', name: 'tools', auth: { type: 'none' } } as never;
        if (rpc === 'connections.test') {
          // A slow tool server: answers only once the agent has been written.
          await toolsAnswered;
          return { tools: [{ name: 'echo' }, { name: 'add' }] } as never;
        }
        answerTools();
        return { agentId: 'a1', version: 1, definition: {} } as never;
      },
    };
    const desired = desiredOf([
      resource('connection', 'tools', { url: 'http://127.0.0.1:9/mcp', auth: { type: 'none' } }),
      resource('agent', 'bot', { system: 's', tools: [], policies: { toolCalls: { hook: { connection: 'tools' } } }, limits: {} }),
    ]);
    const plan = planOf([change('connection', 'tools', 'create'), change('agent', 'bot', 'create', { dependsOn: ['connection/tools'] })]);
    const tested: Array<[string, string, number]> = [];
    const result = await applyPlan(
      plan,
      desired,
      { environmentSlug: 'dev', resources: [], missingOperations: [] },
      { caller },
      {
        ...baseOptions(),
        onConnectionTested: (name, id, tools) => tested.push([name, id, tools.length]),
      },
    );
    expect(result.failed).toEqual([]);
    expect(calls).toEqual(['connections.create', 'connections.test', 'agents.upsert']);
    expect(result.done.find((item) => item.address === 'connection/tools')?.note).toBe('2 tools');
    expect(tested).toEqual([['tools', 'c1', 2]]);
  });
});

describe('applyPlan agent definitions', () => {
  it('sends the minimal definition fields (tools, policies, limits) the user left out', async () => {
    const { caller, calls } = fakeCaller();
    const desired = desiredOf([resource('agent', 'bot', { model: { provider: 'p', model: 'm' }, system: 's' })]);
    await applyPlan(
      planOf([change('agent', 'bot', 'create')]),
      desired,
      { environmentSlug: 'dev', resources: [], missingOperations: [] },
      { caller },
      baseOptions(),
    );
    expect(calls[0].request).toEqual({
      slug: 'bot',
      definition: { name: 'bot', model: { provider: 'p', model: 'm' }, system: 's', tools: [], policies: {}, limits: {} },
    });
  });
});

describe('applyPlan deletes', () => {
  it('counts a delete that finds the resource already gone (a retry after a lost answer) as done', async () => {
    const { caller } = fakeCaller({
      'providers.delete': () => {
        throw new ApiError('providers.delete', 404, 'not_found', 'provider p-old not found');
      },
    });
    const old = actualResource('provider', 'old', 'p-old');
    const actual = { environmentSlug: 'dev', resources: [old], missingOperations: [] };
    const result = await applyPlan(
      planOf([change('provider', 'old', 'delete', { remoteFingerprint: planned(old) })]),
      desiredOf([]),
      actual,
      { caller },
      {
        ...baseOptions(),
        reread: rereadFinding(old),
      },
    );
    expect(result.failed).toEqual([]);
    expect(result.done).toEqual([{ address: 'provider/old', action: 'delete', ms: expect.any(Number), note: 'already gone' }]);
    expect(result.counts.destroyed).toBe(1);
  });

  it('still fails a delete for any other error', async () => {
    const { caller } = fakeCaller({
      'providers.delete': () => {
        throw new ApiError('providers.delete', 409, 'failed_precondition', 'provider is in use');
      },
    });
    const old = actualResource('provider', 'old', 'p-old');
    const actual = { environmentSlug: 'dev', resources: [old], missingOperations: [] };
    const result = await applyPlan(
      planOf([change('provider', 'old', 'delete', { remoteFingerprint: planned(old) })]),
      desiredOf([]),
      actual,
      { caller },
      {
        ...baseOptions(),
        reread: rereadFinding(old),
      },
    );
    expect(result.failed[0]?.code).toBe('failed_precondition');
  });
});

describe('applyPlan deletes of resources removed meanwhile', () => {
  it('makes no call and counts the delete as done when the re-read no longer finds the resource', async () => {
    const { caller, calls } = fakeCaller();
    const actual = { environmentSlug: 'dev', resources: [actualResource('secret', 'old', 's-old')], missingOperations: [] };
    const result = await applyPlan(
      planOf([change('secret', 'old', 'delete', { remoteFingerprint: planned(actual.resources[0]!) })]),
      desiredOf([]),
      actual,
      { caller },
      {
        ...baseOptions(),
        reread: async () => new Map(),
      },
    );
    expect(calls).toEqual([]);
    expect(result.done[0]).toMatchObject({ address: 'secret/old', note: 'already gone' });
  });

  describe('writes of existing resources send the remote object with the configuration merged in', () => {
    const run = async (
      kind: ResourceKind,
      name: string,
      want: DesiredResource['spec'],
      have: DesiredResource['spec'],
      action: ResourceChange['action'] = 'update',
    ) => {
      const { caller, calls } = fakeCaller();
      const existing = actualResource(kind, name, `${kind}-id`, have);
      const wanted = resource(kind, name, want);
      const actual = { environmentSlug: 'dev', resources: [existing], missingOperations: [] };
      const result = await applyPlan(
        planOf([change(kind, name, action, { remoteFingerprint: planned(existing, wanted) })]),
        desiredOf([wanted]),
        actual,
        { caller },
        {
          ...baseOptions(),
          reread: rereadFinding(existing),
        },
      );
      expect(result.failed).toEqual([]);
      return calls.filter((call) => !call.rpc.endsWith('.test')).map((call) => [call.rpc, call.request]);
    };

    // Regression: agents.upsert replaces the whole definition, and fields the configuration did
    // not mention (an out-of-band byTool entry, a sandbox, an identity) were silently removed.
    it('agents.upsert: the whole remote definition, unknown fields included; byTool replaced; null left out', async () => {
      const remote = {
        name: 'A',
        model: { provider: 'p', model: 'm', reasoning: 'high' },
        system: 's',
        tools: [],
        policies: { toolCalls: { byTool: { shell: 'allow', rm: 'deny' } } },
        limits: {},
        sandbox: { scope: 'tree' },
        identity: { required: true },
        futureField: 1,
      };
      const want = { name: 'A', model: { provider: 'p', model: 'n', reasoning: null }, system: 's', policies: { toolCalls: { byTool: { rm: 'deny' } } } };
      expect(await run('agent', 'a', want, remote)).toEqual([
        [
          'agents.upsert',
          {
            slug: 'a',
            definition: {
              name: 'A',
              model: { provider: 'p', model: 'n' },
              system: 's',
              tools: [],
              policies: { toolCalls: { byTool: { rm: 'deny' } } },
              limits: {},
              sandbox: { scope: 'tree' },
              identity: { required: true },
              futureField: 1,
            },
          },
        ],
      ]);
    });

    it('environments.update: every field of the request shape, nulls sent as null, kind never', async () => {
      const remote = {
        name: 'Dev',
        kind: 'development',
        group: 'g',
        expiresAt: null,
        spend: { dailyUsd: 5, tokensPerMonth: 9, serverRevision: 7 },
        retention: { spansDays: 3 },
      };
      expect(await run('environment', 'dev', { name: 'Development', spend: { dailyUsd: null } }, remote)).toEqual([
        [
          'environments.update',
          { slug: 'dev', name: 'Development', group: 'g', expiresAt: null, spend: { dailyUsd: null, tokensPerMonth: 9 }, retention: { spansDays: 3 } },
        ],
      ]);
    });

    it('connections.update and providers.update: the request shape with the remote values', async () => {
      expect(
        await run(
          'connection',
          'c',
          { url: 'https://b.test', auth: { type: 't' } },
          { url: 'https://a.test', transport: 'sse', channel: 'x', hooksUrl: null, hookEvents: ['e'], auth: { type: 't' } },
        ),
      ).toEqual([
        [
          'connections.update',
          { id: 'connection-id', url: 'https://b.test', transport: 'sse', channel: 'x', hooksUrl: null, hookEvents: ['e'], auth: { type: 't' } },
        ],
      ]);
      expect(await run('provider', 'p', { type: 'openai' }, { type: 'other', baseUrl: 'https://gw.test' })).toEqual([
        ['providers.update', { id: 'provider-id', type: 'openai', baseUrl: 'https://gw.test' }],
      ]);
    });

    it('a replacing API key takes over what the configuration does not mention', async () => {
      const calls = await run(
        'apiKey',
        'k',
        { scopes: ['read', 'control'] },
        { scopes: ['read'], spend: { dailyUsd: 5 }, expiresAt: '2030-01-01T00:00:00Z' },
        'replace',
      );
      expect(calls[0]).toEqual([
        'apiKeys.create',
        { key: { name: 'k', scopes: ['read', 'control'], spend: { dailyUsd: 5 }, expiresAt: '2030-01-01T00:00:00Z' } },
      ]);
    });
  });
});

describe('applyPlan when the credential may not write', () => {
  it('stops at the first permission_denied: writes in flight finish, nothing more starts, and it says why', async () => {
    const { caller, calls } = fakeCaller({
      'secrets.create': () => {
        throw new ApiError('secrets.create', 403, 'permission_denied', 'the key lacks the control scope');
      },
    });
    const secrets = ['a', 'b', 'c', 'd', 'e'].map((name) => resource('secret', name, {}, { writeOnly: { value: { source: '${env:V}', value: 'v' } } }));
    const result = await applyPlan(
      planOf(secrets.map((item) => change('secret', item.name, 'create'))),
      desiredOf(secrets),
      { environmentSlug: 'dev', resources: [], missingOperations: [] },
      { caller },
      {
        ...baseOptions(),
        parallelism: 1,
      },
    );
    expect(calls).toHaveLength(1);
    expect(result.failed.map((item) => item.code)).toEqual(['permission_denied']);
    expect(result.notStarted.map((item) => item.address)).toEqual(['secret/b', 'secret/c', 'secret/d', 'secret/e']);
    expect(result.stoppedBy).toContain('secret/a was denied (permission_denied)');
  });
});

describe('applyPlan API keys whose token could be lost', () => {
  const key = resource('apiKey', 'ci', { scopes: ['read'] }, { options: { tokenFile: 'ci.token' } });
  const noRemote = { environmentSlug: 'dev', resources: [], missingOperations: [] };

  it('a created key whose answer (with its token) was lost is revoked and made again', async () => {
    let creates = 0;
    const { caller, calls } = fakeCaller({
      'apiKeys.create': () => {
        creates += 1;
        if (creates === 1)
          throw new ApiError('apiKeys.create', 0, 'token_lost', 'key ci was created (id key_orphan) but the answer carrying its token was lost', {
            keyId: 'key_orphan',
          });
        return { key: { id: 'key_2', name: 'ci', scopes: ['read'] }, token: 'svc_dev_SENTINELTOKEN' };
      },
      'apiKeys.revoke': () => ({ id: 'key_orphan', name: 'ci', scopes: ['read'] }),
    });
    const saved: string[] = [];
    const events: ApplyEvent[] = [];
    const result = await applyPlan(
      planOf([change('apiKey', 'ci', 'create')]),
      desiredOf([key]),
      noRemote,
      { caller },
      {
        ...baseOptions(events),
        saveToken: async (_resource, token) => {
          saved.push(token);
          return 'ci.token';
        },
      },
    );
    expect(result.failed).toEqual([]);
    expect(calls.map((call) => call.rpc)).toEqual(['apiKeys.create', 'apiKeys.revoke', 'apiKeys.create']);
    expect(calls[1]!.request).toEqual({ id: 'key_orphan' });
    expect(saved).toEqual(['svc_dev_SENTINELTOKEN']);
    expect(events.some((event) => event.type === 'info' && event.message.includes('revoked key key_orphan'))).toBe(true);
  });

  it('a new key whose token cannot be saved is revoked, and the old key of a replace is kept', async () => {
    const { caller, calls } = fakeCaller({ 'apiKeys.revoke': () => ({ id: 'key-1', name: 'ci', scopes: ['read'] }) });
    const oldKey = actualResource('apiKey', 'ci', 'old-key');
    const actual = { environmentSlug: 'dev', resources: [oldKey], missingOperations: [] };
    const result = await applyPlan(
      planOf([change('apiKey', 'ci', 'replace', { remoteFingerprint: planned(oldKey, key) })]),
      desiredOf([key]),
      actual,
      { caller },
      {
        ...baseOptions(),
        reread: rereadFinding(oldKey),
        saveToken: async () => {
          throw new Error('token file ci.token appeared since the plan: refusing to overwrite it');
        },
      },
    );
    expect(calls.map((call) => [call.rpc, call.request])).toEqual([
      ['apiKeys.create', { key: { name: 'ci', scopes: ['read'] } }],
      ['apiKeys.revoke', { id: 'key-1' }],
    ]);
    expect(result.failed[0]!.message).toContain('appeared since the plan');
    expect(result.failed[0]!.message).toContain('the new key key-1 was revoked');
    expect(JSON.stringify(result)).not.toContain('SENTINEL');
  });
});
