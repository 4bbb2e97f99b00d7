// Every operation of the operation table, called through the typed client against the local
// control plane, with the success shape checked. The last test proves none was skipped.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { RPC_NAMES, type RequestOf, type ResponseOf, type Rpc } from '../../src/api/operations.js';
import { apiSchemasDir } from '../../src/server/validate.js';
import { MINIMAL_DEFINITION, post, startServer, waitFor } from './helpers.js';
import { tokenPrefix } from '../../src/server/auth.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('every operation over HTTP (conformance)', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  let client: ControlApiClient;
  let models: Server;
  let modelsUrl: string;
  const called = new Set<Rpc>();

  async function op<R extends Rpc>(rpc: R, request: RequestOf<R>): Promise<ResponseOf<R>> {
    called.add(rpc);
    return client.call(rpc, request);
  }

  beforeAll(async () => {
    plane = await startServer({ environments: ['dev', 'prod'] });
    client = new ControlApiClient({ baseUrl: plane.url, credential: { kind: 'key', token: plane.tokens.dev! }, retry: { maxAttempts: 1 } });
    // An OpenAI-compatible /models endpoint standing in for a provider with a baseUrl.
    models = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: 'local-model', owned_by: 'me' }] }));
    });
    await new Promise<void>((resolve) => models.listen(0, '127.0.0.1', resolve));
    modelsUrl = `http://127.0.0.1:${(models.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await client?.close();
    await plane?.cleanup();
    await new Promise((resolve) => models?.close(resolve));
  });

  it('has a request schema for every operation', () => {
    for (const rpc of RPC_NAMES) expect(existsSync(join(apiSchemasDir(), `${rpc}.json`)), rpc).toBe(true);
  });

  it('organizations and environments', async () => {
    const org = await op('organizations.get', undefined);
    expect(org).toMatchObject({ slug: 'local', name: 'Local', id: expect.stringMatching(/^org_/) });
    expect(org.createdAt).toMatch(ISO);
    expect(await op('organizations.update', { name: 'Acme' })).toMatchObject({ id: org.id, name: 'Acme' });

    const dev = await op('environments.get', { slug: 'dev' });
    expect(dev).toMatchObject({ slug: 'dev', organizationId: org.id, archivedAt: null, retention: { sessionEventsDays: 30 } });
    const created = await op('environments.create', { slug: 'staging', name: 'Staging', group: 'pre', spend: { dailyUsd: 5 } });
    expect(created).toMatchObject({ slug: 'staging', name: 'Staging', group: 'pre', kind: 'development', spend: { dailyUsd: 5 } });
    const updated = await op('environments.update', { slug: 'staging', retention: { spansDays: 3 }, spend: { tokensPerMonth: 9 } });
    expect(updated.retention).toMatchObject({ spansDays: 3, sessionEventsDays: 30 });
    expect(updated.spend).toEqual({ dailyUsd: 5, tokensPerMonth: 9 });
    expect((await op('environments.list', {})).map((e) => e.slug)).toEqual(['dev', 'prod', 'staging']);
    const archived = await op('environments.archive', { slug: 'staging' });
    expect(archived.archivedAt).toMatch(ISO);
  });

  it('api keys: create shows the token once, list and revoke never do', async () => {
    const { key, token } = await op('apiKeys.create', { key: { name: 'ci', scopes: ['read'], identityScopes: ['user'], spend: { dailyUsd: 1 } } });
    expect(token).toMatch(/^svc_dev_[0-9a-f]+$/);
    expect(key).toMatchObject({ name: 'ci', scopes: ['read'], identityScopes: ['user'], prefix: tokenPrefix(token), revokedAt: null, expiresAt: null });
    const listed = await op('apiKeys.list', {});
    expect(listed.map((k) => k.name)).toContain('ci');
    expect(JSON.stringify(listed)).not.toContain(token);
    const revoked = await op('apiKeys.revoke', { id: key.id });
    expect(revoked.revokedAt).toMatch(ISO);
    expect(JSON.stringify(revoked)).not.toContain(token);
  });

  it('agents: upsert, get, list, delete', async () => {
    const v1 = await op('agents.upsert', { slug: 'support', definition: MINIMAL_DEFINITION });
    expect(v1).toMatchObject({ agentId: expect.stringMatching(/^agt_/), version: 1, image: { status: 'baking' }, promotedFrom: null });
    expect(v1.definition.description).toBe('');
    expect(await op('agents.get', { slug: 'support' })).toMatchObject({ slug: 'support', version: 1, agentId: v1.agentId });
    expect(await op('agents.get', { slug: 'support', version: 1 })).toMatchObject({ version: 1 });
    expect((await op('agents.list', {})).map((a) => [a.slug, a.version])).toEqual([['support', 1]]);
    await op('agents.upsert', { slug: 'doomed', definition: MINIMAL_DEFINITION });
    expect(await op('agents.delete', { slug: 'doomed' })).toBeUndefined();
    expect((await op('agents.list', {})).map((a) => a.slug)).toEqual(['support']);
  });

  it('connections, grants and connection tests', async () => {
    const connection = await op('connections.create', { name: 'crm', auth: { type: 'svc-signed' }, url: 'http://127.0.0.1:1/mcp' });
    expect(connection).toMatchObject({
      name: 'crm',
      transport: 'streamable-http',
      channel: 'default',
      hookEvents: [],
      hooksUrl: null,
      auth: { type: 'svc-signed' },
    });
    expect(JSON.stringify(connection)).not.toMatch(/whsec_/);
    const updated = await op('connections.update', { id: connection.id, hookEvents: ['session.started'], hooksUrl: 'http://127.0.0.1:1/hooks' });
    expect(updated).toMatchObject({ hookEvents: ['session.started'], hooksUrl: 'http://127.0.0.1:1/hooks', name: 'crm' });
    expect((await op('connections.list', {})).map((c) => c.name)).toEqual(['crm']);

    const imported = await op('connections.grants.import', {
      connectionId: connection.id,
      mode: 'skip_existing',
      grants: [{ identity: { scope: 'user', id: 'u1' }, accessToken: 'at-secret-1' }],
    });
    expect(imported.results).toEqual([{ identity: { scope: 'user', id: 'u1' }, outcome: 'created', grantId: expect.stringMatching(/^grt_/), error: null }]);
    const grants = await op('connections.grants.list', {});
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({
      connectionId: connection.id,
      connection: 'crm',
      status: 'active',
      hasRefreshToken: false,
      identity: { scope: 'user', id: 'u1' },
    });
    expect(JSON.stringify(grants)).not.toContain('at-secret-1');
    expect(await op('connections.grants.delete', { id: grants[0]!.id })).toBeUndefined();

    // Nothing listens on port 1: the test fails with the reason, as failed_precondition.
    await expect(op('connections.test', { id: connection.id })).rejects.toMatchObject({
      status: 409,
      code: 'failed_precondition',
      message: expect.stringContaining('crm'),
    });
    expect(await op('connections.delete', { id: connection.id })).toBeUndefined();
  });

  it('providers: secret write-only, models from the catalog', async () => {
    const provider = await op('providers.create', { name: 'local-llm', type: 'openai', baseUrl: modelsUrl, secret: 'sk-provider-secret' });
    expect(provider).toMatchObject({ name: 'local-llm', type: 'openai', baseUrl: modelsUrl, hasSecret: true });
    expect(JSON.stringify(provider)).not.toContain('sk-provider-secret');
    expect(await op('providers.models', { name: 'local-llm' })).toEqual([expect.objectContaining({ id: 'local-model' })]);
    const updated = await op('providers.update', { id: provider.id, secret: '' });
    expect(updated.hasSecret).toBe(false);
    expect((await op('providers.list', {})).map((p) => p.name)).toEqual(['local-llm']);
    expect(await op('providers.delete', { id: provider.id })).toBeUndefined();
  });

  it('secrets: metadata only', async () => {
    const secret = await op('secrets.create', { name: 'DB_PASSWORD', value: 'hunter2-value' });
    expect(secret).toEqual({
      id: expect.stringMatching(/^sec_/),
      name: 'DB_PASSWORD',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const updated = await op('secrets.update', { id: secret.id, value: 'new-value' });
    expect(updated.id).toBe(secret.id);
    const listed = await op('secrets.list', {});
    expect(JSON.stringify(listed)).not.toMatch(/hunter2|new-value/);
    expect(await op('secrets.delete', { id: secret.id })).toBeUndefined();
  });

  it('sessions, sandboxes, usage and hooks from a simulated session', async () => {
    const hooked = await op('connections.create', {
      name: 'hooked',
      auth: { type: 'none' },
      hooksUrl: 'http://127.0.0.1:1/hooks',
      hookEvents: ['session.started'],
    });
    const sim = await post(
      plane.url,
      '/dev/sessions/simulate',
      { agent: 'support', identity: { scope: 'user', id: 'u9' }, pending: 2, sandboxes: 1, usage: { inputTokens: 10, costUsd: 0.5 } },
      plane.tokens.dev!,
    );
    expect(sim.status).toBe(200);

    const events = await op('sessions.events', { id: sim.body.sessionId });
    expect(events).toEqual([
      expect.objectContaining({
        seq: 1,
        type: 'session.started',
        agentVersion: 1,
        sessionId: sim.body.sessionId,
        identity: expect.objectContaining({ id: 'u9' }),
      }),
      expect.objectContaining({ seq: 2, type: 'session.completed' }),
    ]);
    const pending = await op('sessions.pending', { id: sim.body.sessionId });
    expect(pending).toHaveLength(2);
    expect(pending[0]).toMatchObject({ requestedBy: 'hook', name: 'current_time' });
    expect(Date.parse(pending[0]!.expiresAt!) - Date.parse(pending[0]!.requestedAt!)).toBe(300_000);

    const sandboxes = await op('sandboxes.list', {});
    expect(sandboxes).toEqual([expect.objectContaining({ state: 'provisioning', ownerSessionId: sim.body.sessionId, snapshots: [] })]);

    const usage = await op('usage.keys', { period: { from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' } });
    const mine = usage.find((row) => row.prefix === tokenPrefix(plane.tokens.dev!))!;
    expect(mine.totals).toMatchObject({ inputTokens: 10, costUsd: 0.5, outputTokens: 0 });
    expect(mine.revoked).toBe(false);

    const [deliveryId] = sim.body.deliveries as string[];
    expect(deliveryId).toBeDefined();
    // The receiver does not exist: after maxAttempts (3 in tests) the delivery is dead.
    await waitFor(async () => {
      const list = await post(plane.url, '/dev/hooks/deliveries', {}, plane.tokens.dev!);
      return list.body.find((d: { id: string; status: string }) => d.id === deliveryId && d.status === 'dead');
    });
    const again = await op('hooks.redeliver', { id: deliveryId! });
    expect(again).toMatchObject({
      id: deliveryId,
      status: 'pending',
      attempts: 3,
      connectionId: hooked.id,
      connectionName: 'hooked',
      eventType: 'session.started',
      eventSeq: 1,
    });
    await waitFor(async () => {
      const list = await post(plane.url, '/dev/hooks/deliveries', {}, plane.tokens.dev!);
      return list.body.find((d: { id: string; status: string }) => d.id === deliveryId && d.status === 'dead');
    });
    expect(await op('hooks.redeliverAll', {})).toEqual({ requeued: 1, more: false });
  });

  it('called every operation in the table', () => {
    expect([...called].sort()).toEqual([...RPC_NAMES].sort());
  });
});
