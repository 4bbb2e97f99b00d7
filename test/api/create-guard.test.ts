// A create whose answer is lost must not create a second object: the client looks with the list
// operation before it creates again. The recording server here keeps a real store.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Rpc } from '../../src/api/operations.js';
import { ApiError } from '../../src/errors.js';
import { apiError, drop, ok, startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { rejectionOf, testClient } from './support.js';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer();
});
afterEach(async () => {
  await server.close();
});

interface CreateCase {
  create: Rpc;
  list: Rpc;
  request: Record<string, unknown>;
  /** The field the client matches the listed objects on. */
  key: 'name' | 'slug';
}

const CASES: CreateCase[] = [
  { create: 'connections.create', list: 'connections.list', request: { name: 'github', auth: { type: 'none' } }, key: 'name' },
  { create: 'providers.create', list: 'providers.list', request: { name: 'openai', type: 'openai', secret: 'sk-x' }, key: 'name' },
  { create: 'secrets.create', list: 'secrets.list', request: { name: 'db', value: 'hunter22' }, key: 'name' },
  { create: 'environments.create', list: 'environments.list', request: { slug: 'staging', name: 'Staging' }, key: 'slug' },
];

const path = (rpc: Rpc) => `/v1/${rpc.split('.').join('/')}`;

/** A store behind the create and list paths; `createScript` decides, per create attempt, whether to act and how to answer. */
function storeFor(testCase: CreateCase, createScript: Array<'act-then-drop' | '503-before-acting' | 'act'>) {
  const store: Array<Record<string, unknown>> = [];
  server.on(path(testCase.create), (request, index) => {
    const step = createScript[index] ?? 'act';
    if (step === '503-before-acting') return apiError(503, 'unavailable', 'try later');
    const body = request.body as Record<string, unknown>;
    const created = { id: `obj_${store.length + 1}`, [testCase.key]: body[testCase.key], createdAt: new Date().toISOString() };
    store.push(created);
    return step === 'act-then-drop' ? drop : ok(created);
  });
  server.on(path(testCase.list), () => ok(store));
  return store;
}

describe('duplicate-create guard', () => {
  it.each(CASES.map((testCase) => [testCase.create, testCase]))(
    '%s: created, then the connection drops → the existing object is returned; one object, one create attempt',
    async (_name, testCase) => {
      const store = storeFor(testCase, ['act-then-drop']);
      const { client } = testClient(server.url);
      const result = await client.call(testCase.create, testCase.request as never);
      expect(store).toHaveLength(1);
      expect(result).toEqual(store[0]);
      expect(server.requestsTo(path(testCase.create))).toHaveLength(1);
      expect(server.requestsTo(path(testCase.list))).toHaveLength(1);
      await client.close();
    },
  );

  it.each(CASES.map((testCase) => [testCase.create, testCase]))(
    '%s: 503 before acting → the list shows nothing → created again; one object',
    async (_name, testCase) => {
      const store = storeFor(testCase, ['503-before-acting', 'act']);
      const { client } = testClient(server.url);
      const result = await client.call(testCase.create, testCase.request as never);
      expect(store).toHaveLength(1);
      expect(result).toEqual(store[0]);
      expect(server.requestsTo(path(testCase.create))).toHaveLength(2);
      expect(server.requestsTo(path(testCase.list))).toHaveLength(1);
      await client.close();
    },
  );

  it('an older object of another name does not count as the lost create', async () => {
    const testCase = CASES[0]!;
    const store = storeFor(testCase, ['503-before-acting', 'act']);
    store.push({ id: 'old', name: 'gitlab' });
    const { client } = testClient(server.url);
    const result = (await client.connectionsCreate({ name: 'github', auth: { type: 'none' } as never })) as unknown as { name: string };
    expect(result.name).toBe('github');
    expect(store).toHaveLength(2);
    await client.close();
  });

  it('when the list cannot be read, it stops with unknown_outcome instead of risking a duplicate', async () => {
    server.on('/v1/connections/create', drop);
    server.on('/v1/connections/list', apiError(403, 'permission_denied', 'no read scope'));
    const { client } = testClient(server.url);
    const error = (await rejectionOf(client.connectionsCreate({ name: 'github', auth: { type: 'none' } as never }))) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('unknown_outcome');
    expect(error.message).toContain('connections.create may or may not have taken effect');
    expect(server.requestsTo('/v1/connections/create')).toHaveLength(1);
    await client.close();
  });

  it('apiKeys.create with a lost response → token_lost naming the key id, and no second key', async () => {
    const keys: Array<Record<string, unknown>> = [{ id: 'key_old', name: 'ci', scopes: ['read'], createdAt: '2020-01-01T00:00:00Z' }];
    server.on('/v1/apiKeys/create', (request) => {
      const key = { id: 'key_new1', name: (request.body as { key: { name: string } }).key.name, scopes: ['read'], createdAt: new Date().toISOString() };
      keys.push(key);
      return drop;
    });
    server.on('/v1/apiKeys/list', () => ok(keys));
    const { client } = testClient(server.url);
    const error = (await rejectionOf(client.apiKeysCreate({ key: { name: 'ci', scopes: ['read'] } }))) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('token_lost');
    expect(error.message).toContain('key_new1');
    expect(error.message).not.toContain('key_old');
    expect(error.details).toEqual({ keyId: 'key_new1' });
    expect(keys).toHaveLength(2);
    expect(server.requestsTo('/v1/apiKeys/create')).toHaveLength(1);
    await client.close();
  });

  it('apiKeys.create: 503 before acting → no new key listed → created on the retry', async () => {
    server.on('/v1/apiKeys/create', [
      apiError(503, 'unavailable', 'x'),
      ok({ key: { id: 'key_1', name: 'ci', scopes: ['read'] }, token: 'svc_dev_newToken1' }),
    ]);
    server.on('/v1/apiKeys/list', ok([]));
    const { client } = testClient(server.url);
    const created = await client.apiKeysCreate({ key: { name: 'ci', scopes: ['read'] } });
    expect(created.key.id).toBe('key_1');
    expect(server.requestsTo('/v1/apiKeys/create')).toHaveLength(2);
    await client.close();
  });
});
