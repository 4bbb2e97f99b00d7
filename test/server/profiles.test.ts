// The server profiles: the pessimistic one must differ from the client's assumptions in every way
// the API description allows (each property below), and choosing a profile must be checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DEFAULTS } from '../../src/engine/server-defaults.js';
import { UserError } from '../../src/errors.js';
import { DEFAULTS, type DefaultsTree } from '../../src/server/defaults.js';
import { startLocalControlPlane } from '../../src/server/embedded.js';
import { NESTED_EXTRA_FIELD, NESTED_VOLATILE_FIELD, RECORD_EXTRA_FIELD, reverseKeys, scramble, VOLATILE_FIELD } from '../../src/server/pessimistic.js';
import { parseServerProfileName, SERVER_PROFILE_ENV, serverProfileFromEnv } from '../../src/server/profiles.js';
import { runCli } from '../helpers/cli.js';
import { call, MINIMAL_DEFINITION, post, startServer, tempDir, type Answer } from './helpers.js';

type Plane = Awaited<ReturnType<typeof startServer>>;

/** The value at a dotted path (`a.b.c`), `[]` meaning the first element of an array. */
function at(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const part of path.replace(/\[\]/g, '.0').split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** Dotted paths of every leaf of a defaults table (objects are walked, arrays and scalars are leaves). */
function leaves(tree: DefaultsTree, base = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) => {
    const path = base === '' ? key : `${base}.${key}`;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return [path];
    // whenPresent/eachElement wrap their table in `value` (marked by a symbol key).
    const inner = (Object.getOwnPropertySymbols(value).length > 0 ? (value as { value: DefaultsTree }).value : value) as DefaultsTree;
    return Object.keys(inner).length > 0 ? leaves(inner, path) : [path];
  });
}

/** Every plain object inside a value, with its path (free-form values excluded by the caller). */
function objectsIn(value: unknown, path = ''): Array<{ path: string; object: Record<string, unknown> }> {
  if (Array.isArray(value)) return value.flatMap((item, i) => objectsIn(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  return [{ path, object }, ...Object.entries(object).flatMap(([key, inner]) => objectsIn(inner, path === '' ? key : `${path}.${key}`))];
}

async function ok<T = any>(answer: Promise<Answer<T>>): Promise<T> {
  const result = await answer;
  expect(result.status, result.text).toBeLessThan(300);
  return result.body;
}

// Requests that leave every optional field out, except objects whose defaults are filled only
// inside them (sandbox, compaction.model, fallback models).
const AGENT_REQUEST = {
  ...MINIMAL_DEFINITION,
  model: { ...MINIMAL_DEFINITION.model, fallback: { models: [{ provider: 'anthropic', model: 'claude-haiku' }] } },
  compaction: { model: { provider: 'anthropic', model: 'claude-haiku' } },
  sandbox: {},
};

describe('server profiles', () => {
  let pessimistic: Plane;
  let standard: Plane;
  const as = (plane: Plane, rpc: string, body: unknown) => ok(call(plane.url, rpc, body, plane.tokens.dev!));

  beforeAll(async () => {
    [pessimistic, standard] = await Promise.all([startServer({ profile: 'pessimistic' }), startServer({ profile: 'default' })]);
  });
  afterAll(async () => {
    await pessimistic?.cleanup();
    await standard?.cleanup();
  });

  describe('choosing one', () => {
    it.each([
      [{}, 'default'],
      [{ [SERVER_PROFILE_ENV]: '' }, 'default'],
      [{ [SERVER_PROFILE_ENV]: 'default' }, 'default'],
      [{ [SERVER_PROFILE_ENV]: 'pessimistic' }, 'pessimistic'],
    ] as const)('%j → %s', (env, expected) => {
      expect(serverProfileFromEnv(env)).toBe(expected);
    });

    it('an unknown name is a user error naming the choices', () => {
      expect(() => serverProfileFromEnv({ [SERVER_PROFILE_ENV]: 'optimistic' })).toThrow(UserError);
      expect(() => parseServerProfileName('optimistic', '--profile')).toThrow('--profile: unknown server profile "optimistic"');
      try {
        parseServerProfileName('x', '--profile');
      } catch (error) {
        expect((error as UserError).hint).toBe('use one of: default, pessimistic');
      }
    });

    it('the embedded plane honours AGENTFORM_SERVER_PROFILE when no profile is given', async () => {
      const saved = process.env[SERVER_PROFILE_ENV];
      try {
        process.env[SERVER_PROFILE_ENV] = 'pessimistic';
        const plane = await startLocalControlPlane({ dataDir: tempDir() });
        expect(plane.profile).toBe('pessimistic');
        await plane.close();
        process.env[SERVER_PROFILE_ENV] = 'bogus';
        await expect(startLocalControlPlane({ dataDir: tempDir() })).rejects.toThrow(UserError);
        // An explicit profile wins over the variable.
        const explicit = await startLocalControlPlane({ dataDir: tempDir(), profile: 'default' });
        expect(explicit.profile).toBe('default');
        await explicit.close();
      } finally {
        if (saved === undefined) delete process.env[SERVER_PROFILE_ENV];
        else process.env[SERVER_PROFILE_ENV] = saved;
      }
    });

    // `agentform server --profile` is tested with the server command (cli-server.test.ts).
    it('a CLI process refuses an unknown AGENTFORM_SERVER_PROFILE for url: local cleanly', async () => {
      const result = await runCli(['whoami', '--url', 'local'], { cwd: tempDir(), env: { [SERVER_PROFILE_ENV]: 'bogus' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('unknown server profile "bogus"');
      expect(result.stderr).toContain('use one of: default, pessimistic');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  });

  describe('pessimistic: server-filled defaults', () => {
    let agent: { definition: Record<string, unknown> };
    let defaultAgent: { definition: Record<string, unknown> };
    let connection: Record<string, unknown>;
    let apiKey: Record<string, unknown>;
    let environment: Record<string, unknown>;
    let provider: Record<string, unknown>;

    beforeAll(async () => {
      agent = await as(pessimistic, 'agents.upsert', { slug: 'filled', definition: AGENT_REQUEST });
      defaultAgent = await as(standard, 'agents.upsert', { slug: 'filled', definition: AGENT_REQUEST });
      connection = await as(pessimistic, 'connections.create', { name: 'filled', auth: { type: 'none' } });
      apiKey = (await as(pessimistic, 'apiKeys.create', { key: { name: 'filled', scopes: ['read'] } })).key;
      environment = await as(pessimistic, 'environments.create', { slug: 'filled', name: 'Filled' });
      provider = await as(pessimistic, 'providers.create', { name: 'filled', type: 'openai' });
    });

    // The client's table (src/engine/server-defaults.ts): no value of it may be what this server answers.
    // `tools` is a required request field, so it is never filled.
    const clientTable = (kind: 'agent' | 'connection' | 'apiKey') =>
      Object.keys(SERVER_DEFAULTS[kind])
        .filter((path) => path !== 'tools')
        .map((path) => [kind, path] as const);
    it.each([...clientTable('agent'), ...clientTable('connection'), ...clientTable('apiKey')])('%s %s differs from the client table', (kind, path) => {
      const record = { agent: agent?.definition, connection, apiKey }[kind];
      expect(at(record, path)).not.toEqual((SERVER_DEFAULTS[kind] as Record<string, unknown>)[path]);
    });

    // The default profile's own table: every value differs, except empty collections (an empty
    // list or map is the only sensible default for a list of build steps or per-tool decisions).
    const EMPTY_ONLY = new Set(['policies.toolCalls.byTool', 'sandbox.image.steps', 'sandbox.image.secrets', 'sandbox.tools.allow', 'sandbox.tools.deny']);
    it.each(leaves(DEFAULTS.agentDefinition).filter((path) => !EMPTY_ONLY.has(path)))('agent definition %s differs from the default profile', (path) => {
      expect(at(agent.definition, path)).not.toEqual(at(defaultAgent.definition, path));
    });
    it.each([
      ['environment', 'kind'],
      ['environment', 'group'],
      ['environment', 'expiresAt'],
      ['environment', 'spend'],
      ...leaves(DEFAULTS.environment.retention as DefaultsTree, 'retention').map((path) => ['environment', path] as const),
      ['connection', 'transport'],
      ['connection', 'channel'],
      ['connection', 'hooksUrl'],
      ['connection', 'hookEvents'],
      ['apiKey', 'identityScopes'],
      ['apiKey', 'spend'],
      ['apiKey', 'expiresAt'],
      ['provider', 'baseUrl'],
    ] as const)('%s %s differs from the default profile', (kind, path) => {
      const record = { environment, connection, apiKey, provider }[kind];
      const table = { environment: DEFAULTS.environment, connection: DEFAULTS.connection, apiKey: DEFAULTS.apiKey, provider: DEFAULTS.provider }[kind];
      expect(at(record, path)).not.toEqual(at(table, path));
    });

    // Filled here, not by the default profile (fields the default profile never fills).
    it.each([
      'model.caching.mode',
      'model.caching.ttl',
      'model.caching.keepWarm.idleAfterMinutes',
      'model.fallback.on',
      'model.fallback.timeoutMs',
      'model.fallback.models[].reasoning',
      'compaction.contextTokens',
      'compaction.prompt',
      'compaction.dropToolResultsAfterTokens',
      'compaction.model.reasoning',
      'sandbox.provider',
      'sandbox.image.base',
    ])('fills %s, which the default profile leaves out', (path) => {
      expect(at(agent.definition, path)).toBeDefined();
      expect(at(defaultAgent.definition, path)).toBeUndefined();
    });

    // Filled, though the client's table has no entry for them.
    it.each([
      'sandbox.lifecycle.keepSnapshots',
      'subagentPolicy.maxDepth',
      'identity.required',
      'identity.scopesAllowed',
      'limits.maxTurns',
      'compaction.prompt',
    ])('fills %s, which the client table does not list', (path) => {
      expect(at(agent.definition, path)).toBeDefined();
      expect(Object.keys(SERVER_DEFAULTS.agent)).not.toContain(path);
    });

    it('leaves subagents and a connection hooksUrl absent instead of [] and null', () => {
      expect(agent.definition).not.toHaveProperty('subagents');
      expect(connection).not.toHaveProperty('hooksUrl');
    });

    it('keeps every value a request sets, including the default profile values', async () => {
      const sent = {
        ...MINIMAL_DEFINITION,
        description: '',
        model: { ...MINIMAL_DEFINITION.model, reasoning: 'none' },
        subagents: [],
        toolLoading: { mode: 'eager' },
      };
      const { definition } = await as(pessimistic, 'agents.upsert', { slug: 'explicit', definition: sent });
      expect(definition).toMatchObject({ description: '', model: { reasoning: 'none' }, subagents: [], toolLoading: { mode: 'eager', autoThreshold: 8 } });
    });
  });

  describe('pessimistic: a client that sends back what it read changes nothing', () => {
    // A provider's unset baseUrl is reported as the vendor's endpoint; an update that keeps the
    // value it read (apply does: issue 13) must leave it unset, so the built-in catalogue stays.
    it('the reported vendor baseUrl sent back keeps baseUrl unset', async () => {
      const created = await as(pessimistic, 'providers.create', { name: 'vendor', type: 'openai' });
      await as(pessimistic, 'providers.update', { id: created.id, type: 'openai', baseUrl: created.baseUrl });
      expect((await as(pessimistic, 'providers.models', { name: 'vendor' })).length).toBeGreaterThan(0);
    });
  });

  describe('pessimistic: answers', () => {
    it('a new agent version on every upsert, identical ones included (the default profile makes none)', async () => {
      const versions = async (plane: Plane) => {
        const out: number[] = [];
        for (let i = 0; i < 3; i++) out.push((await as(plane, 'agents.upsert', { slug: 'same', definition: MINIMAL_DEFINITION })).version);
        return out;
      };
      expect(await versions(pessimistic)).toEqual([1, 2, 3]);
      expect(await versions(standard)).toEqual([1, 1, 1]);
    });

    it('connection auth comes back as {type} only; no write-only value is ever in an answer', async () => {
      const auth = { type: 'bearer', token: 'tok-WRITE-ONLY', headerName: 'X-Api-Key' };
      const created = await as(pessimistic, 'connections.create', { name: 'authy', url: 'http://127.0.0.1:9/mcp', auth });
      expect(created.auth).toEqual({ type: 'bearer' });
      const listed = await call(pessimistic.url, 'connections.list', {}, pessimistic.tokens.dev!);
      expect(listed.body.find((c: { name: string }) => c.name === 'authy').auth).toEqual({ type: 'bearer' });
      expect(listed.text).not.toContain('tok-WRITE-ONLY');
      expect(listed.text).not.toContain('X-Api-Key');
      // The default profile too (issue 45: whatever the field names).
      expect((await as(standard, 'connections.create', { name: 'authy', auth })).auth).toEqual({ type: 'bearer' });

      const withSecret = await call(
        pessimistic.url,
        'providers.create',
        { name: 'secretive', type: 'openai', secret: 'sk-WRITE-ONLY' },
        pessimistic.tokens.dev!,
      );
      expect(withSecret.body.hasSecret).toBe(true);
      expect(withSecret.text).not.toContain('sk-WRITE-ONLY');
    });

    it('lists come in an order unrelated to creation (and to names), the same on every read', async () => {
      const names = Array.from({ length: 12 }, (_, i) => `ordered-${String(i).padStart(2, '0')}`);
      for (const name of names) await as(pessimistic, 'secrets.create', { name, value: 'v' });
      for (const name of names) await as(pessimistic, 'agents.upsert', { slug: name, definition: MINIMAL_DEFINITION });
      for (const rpc of ['secrets.list', 'agents.list']) {
        const field = rpc === 'agents.list' ? 'slug' : 'name';
        const order = async () =>
          ((await as(pessimistic, rpc, {})) as Array<Record<string, string>>).map((item) => item[field]!).filter((name) => name.startsWith('ordered-'));
        const first = await order();
        expect(first, rpc).not.toEqual(names);
        expect([...first].sort(), rpc).toEqual(names);
        expect(await order(), rpc).toEqual(first);
      }
    });

    it('JSON keys come in another order at every level', async () => {
      const { text } = await call(pessimistic.url, 'agents.get', { slug: 'filled' }, pessimistic.tokens.dev!);
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(body)[0]).toBe(VOLATILE_FIELD);
      expect(Object.keys(body).indexOf('agentId')).toBeGreaterThan(Object.keys(body).indexOf('version'));
      const definition = Object.keys(body.definition as object);
      expect(definition.indexOf('name')).toBeGreaterThan(definition.indexOf('system'));
      // Sent as {provider, model, fallback}; filled with reasoning and caching; two unknown fields added.
      expect(Object.keys((body.definition as { model: object }).model)).toEqual([
        NESTED_VOLATILE_FIELD,
        NESTED_EXTRA_FIELD,
        'caching',
        'reasoning',
        'fallback',
        'model',
        'provider',
      ]);
    });

    it('unknown fields on every record and inside nested objects, one of them new on every read', async () => {
      const read = () => as(pessimistic, 'agents.get', { slug: 'filled' });
      const first = await read();
      const second = await read();
      expect(first[RECORD_EXTRA_FIELD]).toBe('local-1');
      expect(Date.parse(second[VOLATILE_FIELD])).toBeGreaterThan(Date.parse(first[VOLATILE_FIELD]));
      // Nested in the definitions agents.list and agents.get answer with too (issue 44): apply sends
      // definitions back whole, promote and rollback copy a version read with agents.get.
      const listedAt = async () => {
        const listed = ((await as(pessimistic, 'agents.list', {})) as Array<{ slug: string; definition: { model: Record<string, string> } }>).find(
          (agent) => agent.slug === 'filled',
        )!;
        return Date.parse(listed.definition.model[NESTED_VOLATILE_FIELD]!);
      };
      const earlier = await listedAt();
      expect(await listedAt()).toBeGreaterThan(earlier);
      const gotAt = (read: Record<string, unknown>) => Date.parse((read.definition as { model: Record<string, string> }).model[NESTED_VOLATILE_FIELD]!);
      expect(gotAt(second)).toBeGreaterThan(gotAt(first));
      for (const { path, object } of objectsIn(first).filter(({ path }) => path !== '' && !/byTool/.test(path))) {
        expect(object, path).toHaveProperty(NESTED_EXTRA_FIELD);
      }
      const lists = ['agents.list', 'connections.list', 'providers.list', 'secrets.list', 'apiKeys.list', 'environments.list', 'connections.grants.list'];
      for (const rpc of lists) {
        for (const item of (await as(pessimistic, rpc, {})) as Array<Record<string, unknown>>) {
          expect(item, rpc).toHaveProperty(RECORD_EXTRA_FIELD);
          expect(item, rpc).toHaveProperty(VOLATILE_FIELD);
        }
      }
      for (const rpc of ['organizations.get', 'environments.get'])
        expect(await as(pessimistic, rpc, rpc === 'environments.get' ? { slug: 'dev' } : undefined), rpc).toHaveProperty(VOLATILE_FIELD);
    });

    it('null fields are left out of answers', async () => {
      const keys = (await as(pessimistic, 'apiKeys.list', {})) as Array<Record<string, unknown>>;
      for (const key of keys) expect(key).not.toHaveProperty('revokedAt');
      const organization = await as(pessimistic, 'organizations.get', undefined);
      expect(organization).not.toHaveProperty('idpOrganizationId');
    });

    it('accepts back, in requests, what it answered (unknown fields, reordered keys, its defaults)', async () => {
      const read = await as(pessimistic, 'agents.get', { slug: 'filled' });
      const again = await as(pessimistic, 'agents.upsert', { slug: 'filled', definition: read.definition });
      expect(again.version).toBe(read.version + 1);
      expect(again.definition).toMatchObject({ description: read.definition.description, model: read.definition.model });

      const connection = ((await as(pessimistic, 'connections.list', {})) as Array<Record<string, unknown>>).find((c) => c.name === 'filled')!;
      expect(await as(pessimistic, 'connections.update', connection)).toMatchObject({ id: connection.id, transport: connection.transport });
      const env = await as(pessimistic, 'environments.get', { slug: 'filled' });
      expect(await as(pessimistic, 'environments.update', env)).toMatchObject({ slug: 'filled', retention: env.retention });
      const provider = ((await as(pessimistic, 'providers.list', {})) as Array<Record<string, unknown>>).find((p) => p.name === 'filled')!;
      expect(await as(pessimistic, 'providers.update', provider)).toMatchObject({ id: provider.id });
    });

    it('records hook deliveries only for connections with a hooksUrl (its connections get hookEvents by default)', async () => {
      await as(pessimistic, 'connections.create', { name: 'hooked', auth: { type: 'none' }, hooksUrl: 'http://127.0.0.1:9/hooks' });
      const simulated = await post(pessimistic.url, '/dev/sessions/simulate', { agent: 'filled', events: ['session.started'] }, pessimistic.tokens.dev!);
      expect(simulated.status, simulated.text).toBe(200);
      expect(simulated.body.deliveries).toHaveLength(1);
    });
  });

  describe('pessimistic: building blocks', () => {
    it('reverseKeys reverses every level and keeps values', () => {
      const value = { a: 1, b: { c: [{ d: 1, e: 2 }], f: null } };
      const out = reverseKeys(value) as typeof value;
      expect(JSON.stringify(out)).toBe('{"b":{"f":null,"c":[{"e":2,"d":1}]},"a":1}');
      expect(out).toEqual(value);
    });

    it('scramble is a deterministic permutation that depends on ids, not positions', () => {
      const items = Array.from({ length: 20 }, (_, i) => ({ id: `id-${i}` }));
      const once = scramble(items);
      expect(once).not.toEqual(items);
      expect([...once].sort((a, b) => Number(a.id.slice(3)) - Number(b.id.slice(3)))).toEqual(items);
      expect(scramble([...items].reverse())).toEqual(once);
    });
  });
});
