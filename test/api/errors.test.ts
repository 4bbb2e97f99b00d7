// How failures reach the caller: ApiError fields, odd bodies, missing operations, unreachable servers,
// and the refusal of plain http:// to other hosts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { ApiError, UserError } from '../../src/errors.js';
import { apiError, closedPort, startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { TOKEN, rejectionOf, testClient } from './support.js';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer();
});
afterEach(async () => {
  await server.close();
});

describe('ApiError', () => {
  it('carries rpc, status, code, message and the request id from the error body', async () => {
    server.on('/v1/agents/get', apiError(404, 'not_found', 'agent support does not exist'));
    const { client } = testClient(server.url);
    const error = await rejectionOf(client.agentsGet({ slug: 'support' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ rpc: 'agents.get', status: 404, code: 'not_found', message: 'agent support does not exist' });
    expect((error as ApiError).requestId).toBe(server.requests[0]!.headers['x-request-id']);
    expect((error as ApiError).isUnimplemented).toBe(false);
    await client.close();
  });

  it('keeps details and derives a code from the status when the body has none', async () => {
    server.on('/v1/agents/upsert', { status: 409, body: { error: { message: 'version conflict', details: { slug: 'a' } } } });
    const { client } = testClient(server.url);
    const error = (await rejectionOf(client.agentsUpsert({ slug: 'a', definition: {} as never }))) as ApiError;
    expect(error).toMatchObject({ status: 409, code: 'failed_precondition', message: 'version conflict', details: { slug: 'a' } });
    await client.close();
  });

  it.each([
    [400, '<html><body>Bad request from the proxy</body></html>', 'invalid_argument'],
    [403, 'forbidden by policy', 'permission_denied'],
    [500, 'Internal Server Error', 'internal'],
    [418, '{"not": "an error envelope"}', 'unknown'],
  ])('a non-JSON or foreign error body (%i) is still readable', async (status, text, code) => {
    server.on('/v1/sandboxes/list', { status, text });
    const { client } = testClient(server.url);
    const error = (await rejectionOf(client.sandboxesList({}))) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.message).toContain(`HTTP ${status}`);
    if (!text.startsWith('{')) expect(error.message).toContain(text.slice(0, 20));
    await client.close();
  });

  // A gateway or another server in front of the API answers in its own shape: its words are the
  // only explanation the user gets ("Token expired"), so they are kept.
  it.each([
    ['{"message"}', { message: 'Token expired' }],
    ['{"error": "…"}', { error: 'Token expired' }],
    ['OAuth {error, error_description}', { error: 'invalid_token', error_description: 'Token expired' }],
    ['problem+json {title, detail}', { type: 'about:blank', title: 'Unauthorized', detail: 'Token expired' }],
    ['a JSON string', 'Token expired'],
  ])('a 401 whose JSON body is not the envelope (%s) keeps its message', async (_shape, body) => {
    server.on('/v1/sandboxes/list', { status: 401, text: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const { client } = testClient(server.url);
    const error = (await rejectionOf(client.sandboxesList({}))) as ApiError;
    expect(error).toMatchObject({ status: 401, code: 'unauthenticated', message: 'HTTP 401: Token expired' });
    await client.close();
  });

  it('a 401 in plain text keeps its message too, and a JSON body of no known shape is shown as it is', async () => {
    server.on('/v1/sandboxes/list', [
      { status: 401, text: 'Token expired' },
      { status: 401, text: '{"reason":"Token expired"}' },
    ]);
    const { client } = testClient(server.url);
    expect(await rejectionOf(client.sandboxesList({}))).toMatchObject({ code: 'unauthenticated', message: 'HTTP 401: Token expired' });
    expect(await rejectionOf(client.sandboxesList({}))).toMatchObject({ code: 'unauthenticated', message: 'HTTP 401: {"reason":"Token expired"}' });
    await client.close();
  });

  it('a 2xx answer that is not JSON is an invalid_response error, not a crash', async () => {
    server.on('/v1/sandboxes/list', { status: 200, text: '<html>captive portal</html>' });
    const { client } = testClient(server.url);
    await expect(client.sandboxesList({})).rejects.toMatchObject({ code: 'invalid_response', status: 200 });
    await client.close();
  });
});

describe('an operation the server does not offer', () => {
  it.each([
    ['agents.list', '/v1/agents/list', { status: 404, body: { error: { code: 'unimplemented', message: 'no such route' } } }, true],
    ['secrets.list', '/v1/secrets/list', { status: 404, text: 'Not Found' }, true],
    ['sandboxes.list', '/v1/sandboxes/list', { status: 404, text: '' }, false],
    ['usage.keys', '/v1/usage/keys', { status: 501, body: { error: { code: 'unimplemented', message: 'x' } } }, false],
  ] as const)('%s → "the server does not offer <rpc>"', async (rpc, path, answer, assumed) => {
    server.on(path, answer);
    const { client, attempts } = testClient(server.url);
    const error = (await rejectionOf(client.call(rpc, { period: { from: 'a', to: 'b' } } as never))) as ApiError;
    expect(error.code).toBe('unimplemented');
    expect(error.isUnimplemented).toBe(true);
    expect(error.message).toContain(`the server does not offer ${rpc}`);
    expect(error.message.includes('Assumptions about the API')).toBe(assumed);
    expect(attempts).toHaveLength(1);
    await client.close();
  });
});

describe('an unreachable server', () => {
  it('connection refused names the URL and is not retried', async () => {
    const port = await closedPort();
    const { client, attempts } = testClient(`http://127.0.0.1:${port}`);
    const error = (await rejectionOf(client.organizationsGet())) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ rpc: 'organizations.get', status: 0, code: 'connection_refused' });
    expect(error.message).toContain(`http://127.0.0.1:${port}`);
    expect(attempts).toHaveLength(1);
    await client.close();
  });

  it('a server that does not answer in time is a timeout per request, naming the limit', async () => {
    // The limit is the client's own timer over the whole exchange, so two attempts end in well under a second while the server would stall for five.
    server.on('/v1/sandboxes/list', { status: 200, body: [], delayMs: 5_000 });
    const { client, attempts } = testClient(server.url, { timeoutMs: 100, retry: { maxAttempts: 2 } });
    const started = Date.now();
    const error = (await rejectionOf(client.sandboxesList({}))) as ApiError;
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('within 100 ms');
    expect(attempts).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(1_000);
    await client.close();
  });

  it('an answer cut off in the middle of its body is a connection reset (uncertain, so retried)', async () => {
    // Announces 1,000 bytes, sends 10, then closes the socket.
    const raw = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('[{"id":"a"');
      setTimeout(() => response.socket?.destroy(), 10);
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const { client, attempts } = testClient(`http://127.0.0.1:${(raw.address() as AddressInfo).port}`, { retry: { maxAttempts: 2 } });
    try {
      const error = (await rejectionOf(client.sandboxesList({}))) as ApiError;
      expect(error).toMatchObject({ status: 0, code: 'connection_reset' });
      expect(attempts).toHaveLength(2);
    } finally {
      await client.close();
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it('cancel() ends a request in flight at once, and nothing is sent after it', async () => {
    // Bounds far apart (an answer after 15 s, cancelled within 5 s): a loaded CI machine stays inside.
    server.on('/v1/sandboxes/list', { status: 200, body: [], delayMs: 15_000 });
    const { client } = testClient(server.url);
    const started = Date.now();
    const pending = rejectionOf(client.sandboxesList({}));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await client.cancel();
    // Cancelled, not a network failure (it read `network` until the twenty-third session).
    expect(await pending).toMatchObject({ status: 0, code: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(((await rejectionOf(client.sandboxesList({}))) as ApiError).code).toBe('cancelled');
    expect(server.requests).toHaveLength(1);
  });
});

describe('closing the client', () => {
  it('leaves nothing that keeps a process alive: a CLI run ends right after its last answer', async () => {
    // Run in a child process: the time from close() to the process's exit must be short (undici's
    // timers used to hold it ~100 ms).
    server.on('/v1/sandboxes/list', { status: 200, body: [] });
    const script = `
      const { ControlApiClient } = await import(${JSON.stringify(new URL('../../dist/src/api/client.js', import.meta.url).href)});
      const client = new ControlApiClient({ baseUrl: ${JSON.stringify(server.url)}, credential: { kind: 'key', token: 'svc_dev_x' } });
      await client.sandboxesList({});
      await client.sandboxesList({});
      await client.close();
      const closedAt = performance.now();
      process.on('exit', () => process.stdout.write(String(Math.round(performance.now() - closedAt))));`;
    // Asynchronously: the recording server answers from this process's event loop.
    const child = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(child.stderr).toBe('');
    expect(Number(child.stdout)).toBeLessThan(30);
  });
});

describe('plain http:// is refused to hosts that are not loopback', () => {
  const key = { kind: 'key', token: TOKEN } as const;
  it.each(['http://control.example.com', 'http://10.0.0.5:8080', 'http://192.168.1.1', 'http://[2001:db8::1]/'])('refuses %s', (baseUrl) => {
    expect(() => new ControlApiClient({ baseUrl, credential: key })).toThrow(UserError);
    expect(() => new ControlApiClient({ baseUrl, credential: key })).toThrow(/refusing plain http/);
  });

  it.each(['http://127.0.0.1:1', 'http://127.42.0.9', 'http://localhost:8080', 'http://LOCALHOST', 'http://[::1]:9000', 'https://control.example.com'])(
    'allows %s',
    async (baseUrl) => {
      const client = new ControlApiClient({ baseUrl, credential: key });
      await client.close();
    },
  );

  it('allows any host with insecureHttp', async () => {
    const client = new ControlApiClient({ baseUrl: 'http://control.example.com', credential: key, insecureHttp: true });
    await client.close();
  });

  it.each(['ftp://example.com', 'not a url', 'control.example.com'])('rejects %s as a URL', (baseUrl) => {
    expect(() => new ControlApiClient({ baseUrl, credential: key })).toThrow(UserError);
  });
});
