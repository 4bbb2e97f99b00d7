// Every operation in the contract, called over HTTP through its typed method on client.ops.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient, methodNameOf } from '../../src/api/client.js';
import { OPERATIONS, RPC_NAMES, operationPath, type Rpc } from '../../src/api/operations.js';
import { answersWithList, startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'svc_dev_opsTestSecret123';

let server: RecordingServer;
let client: ControlApiClient;
beforeAll(async () => {
  server = await startRecordingServer((request) => ({ status: 200, body: echoOf(request.path) }));
  client = new ControlApiClient({ baseUrl: server.url, credential: { kind: 'key', token: TOKEN } });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

/** The answer naming the path it was asked at, a list of one for an operation that answers a list. */
function echoOf(path: string): unknown {
  return answersWithList(path) ? [{ echoed: path }] : { echoed: path };
}

/** A distinguishable body per operation; organizations.get is documented as having none. */
function requestFor(rpc: Rpc): unknown {
  return rpc === 'organizations.get' ? undefined : { probe: rpc, nested: { n: 1 } };
}

describe('one typed method per operation', () => {
  it('covers the whole operation table (37 operations) with distinct method names', () => {
    expect(RPC_NAMES.length).toBe(Object.keys(OPERATIONS).length);
    const names = RPC_NAMES.map(methodNameOf);
    expect(new Set(names).size).toBe(RPC_NAMES.length);
    for (const name of names) expect(typeof (client.ops as unknown as Record<string, unknown>)[name]).toBe('function');
  });

  it.each([
    ['agents.upsert', 'agentsUpsert'],
    ['connections.grants.import', 'connectionsGrantsImport'],
    ['organizations.get', 'organizationsGet'],
    ['usage.keys', 'usageKeys'],
  ] as const)('%s is client.ops.%s', (rpc, method) => {
    expect(methodNameOf(rpc)).toBe(method);
  });

  it.each(RPC_NAMES.map((rpc) => [rpc]))('%s: POST /v1/<group>/<op> with JSON, bearer key and the body', async (rpc) => {
    const before = server.requests.length;
    const method = (client.ops as unknown as Record<string, (request: unknown) => Promise<unknown>>)[methodNameOf(rpc)]!;
    const response = await method(requestFor(rpc));
    expect(server.requests.length).toBe(before + 1);
    const recorded = server.requests.at(-1)!;
    expect(recorded.method).toBe('POST');
    expect(recorded.path).toBe(`/v1/${rpc.split('.').join('/')}`);
    expect(recorded.path).toBe(operationPath(rpc));
    expect(recorded.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(recorded.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    if (rpc === 'organizations.get') {
      expect(recorded.rawBody).toBe('');
      expect(recorded.headers['content-type']).toBeUndefined();
    } else {
      expect(recorded.headers['content-type']).toBe('application/json');
      expect(recorded.body).toEqual(requestFor(rpc));
    }
    expect(response).toEqual(echoOf(recorded.path));
  });
});

describe('methods on the client itself', () => {
  it('has every operation as a method of the client, the same as client.ops', () => {
    for (const rpc of RPC_NAMES) {
      expect(typeof (client as unknown as Record<string, unknown>)[methodNameOf(rpc)]).toBe('function');
    }
  });

  it('sends {} for a list called without an argument, and no body for organizations.get', async () => {
    await client.providersList();
    expect(server.requests.at(-1)!.rawBody).toBe('{}');
    await client.organizationsGet();
    expect(server.requests.at(-1)!.rawBody).toBe('');
    await client.call('secrets.list', {});
    expect(server.requests.at(-1)!.body).toEqual({});
  });
});

describe('base URL and responses', () => {
  it('keeps a base path and answers empty bodies (200 or 204) as undefined', async () => {
    const local = await startRecordingServer(() => ({ status: 204 }));
    const prefixed = new ControlApiClient({ baseUrl: `${local.url}/api/`, credential: { kind: 'key', token: TOKEN } });
    try {
      await expect(prefixed.ops.agentsDelete({ slug: 'a' })).resolves.toBeUndefined();
      expect(local.requests[0]!.path).toBe('/api/v1/agents/delete');
      local.setHandler(() => ({ status: 200, body: '' }));
      await expect(prefixed.ops.secretsDelete({ id: 's' })).resolves.toBeUndefined();
    } finally {
      await prefixed.close();
      await local.close();
    }
  });

  it('gives every call its own x-request-id', async () => {
    const before = server.requests.length;
    await Promise.all(Array.from({ length: 20 }, () => client.ops.sandboxesList({})));
    const ids = server.requests.slice(before).map((request) => request.headers['x-request-id']);
    expect(new Set(ids).size).toBe(20);
  });

  it('sends the cookie and tenancy headers, and no authorization, with a cookie credential', async () => {
    const local = await startRecordingServer();
    const cookieClient = new ControlApiClient({
      baseUrl: local.url,
      credential: { kind: 'cookie', cookie: 'session=abc123', organization: 'acme', environment: 'staging' },
    });
    try {
      await cookieClient.ops.environmentsList({});
      const headers = local.requests[0]!.headers;
      expect(headers.cookie).toBe('session=abc123');
      expect(headers['x-svc-organization']).toBe('acme');
      expect(headers['x-svc-environment']).toBe('staging');
      expect(headers.authorization).toBeUndefined();
    } finally {
      await cookieClient.close();
      await local.close();
    }
  });

  // The agent may alternate between two sockets while one finishes its response; what matters is
  // that 30 calls do not open 30 connections.
  it('reuses connections (keep-alive agent): 30 sequential calls over at most two sockets', async () => {
    const local = await startRecordingServer();
    const keepAlive = new ControlApiClient({ baseUrl: local.url, credential: { kind: 'key', token: TOKEN } });
    try {
      for (let i = 0; i < 30; i += 1) await keepAlive.ops.sandboxesList({});
      expect(new Set(local.requests.map((request) => request.remotePort)).size).toBeLessThanOrEqual(2);
    } finally {
      await keepAlive.close();
      await local.close();
    }
  });
});
