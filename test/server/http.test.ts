// The request path of src/server/http.ts, and the rules at the socket that both servers it may run
// on keep (its operations are tested through the server elsewhere).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, pathOfTarget } from '../../src/server/http.js';
import { ServiceError } from '../../src/server/service-error.js';
import { startServer } from './helpers.js';

describe('pathOfTarget', () => {
  it.each([
    '/v1/agents/upsert',
    '/v1/connections/grants/import',
    '/dev/cookie',
    '/v1//agents/list',
    '/v1/../v1/agents/list',
    '/v1/./agents/list',
    '/v1/agents%2Flist',
    '/v1/agents/list?x=1',
    '/v1/agents/list#f',
    '//v1/agents/list',
    '/v1/agents/list/',
    '/',
  ])('%s resolves as URL resolves it', (target) => {
    expect(pathOfTarget(target)).toBe(new URL(target, 'http://local').pathname);
  });
});

it('refuses a target that is not a path with a 400, not an internal error', () => {
  expect(() => pathOfTarget('http://[')).toThrow(ServiceError);
  expect(() => pathOfTarget('http://[')).toThrow(/is not a path/);
});

/** Both servers the control plane may run on (src/server/http-factory.ts): each keeps these rules. */
const SERVERS = [
  { server: 'the hand-written server', env: {} },
  { server: 'node:http (AGENTFORM_OPTIMIZATIONS=off)', env: { AGENTFORM_OPTIMIZATIONS: 'off' } },
];

describe.each(SERVERS)('on $server', ({ env }) => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    plane = await startServer({ env, timeouts: { headersMs: 400, requestMs: 800 } });
  });
  afterAll(async () => plane?.cleanup());

  /** Writes `request` on a fresh connection; resolves with everything received once the server closes it. */
  function exchange(request: string, then?: (socket: Socket, received: () => string) => void, url = plane.url): Promise<string> {
    const { port } = new URL(url);
    return new Promise((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        text += chunk;
        then?.(socket, () => text);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
      socket.write(request);
    });
  }

  const head = (extra: string, length: number) =>
    `POST /v1/secrets/create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}Content-Length: ${length}\r\n\r\n`;
  const authorized = () => `Authorization: Bearer ${plane.tokens.dev}\r\n`;

  it('a 401 while the body is still on its way closes the connection', async () => {
    const text = await exchange(`${head('', 100)}{"name":`);
    expect(text).toMatch(/^HTTP\/1\.1 401 [\s\S]*\r\nconnection: close\r\n/i);
  });

  it('a client waiting on 100-continue is told to send the body only after its credential passed', async () => {
    const refused = await exchange(head('Expect: 100-continue\r\n', 2));
    expect(refused).toMatch(/^HTTP\/1\.1 401 /);
    const body = '{"name":"CONTINUED","value":"v"}';
    const accepted = await exchange(head(`${authorized()}Expect: 100-continue\r\nConnection: close\r\n`, body.length), (socket, received) => {
      if (received() === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write(body);
    });
    expect(accepted).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 [\s\S]*"CONTINUED"/);
  });

  it.each([
    ['declared', () => head(authorized(), MAX_BODY_BYTES + 1)],
    [
      'sent in chunks',
      () =>
        `POST /v1/secrets/create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${authorized()}Transfer-Encoding: chunked\r\n\r\n` +
        `${(MAX_BODY_BYTES + 1).toString(16)}\r\n${'x'.repeat(MAX_BODY_BYTES + 1)}\r\n0\r\n\r\n`,
    ],
  ])('a body over the limit (%s) is answered 413, and the connection closes', async (_, request) => {
    const text = await exchange(request());
    expect(text).toMatch(/^HTTP\/1\.1 413 [\s\S]*\r\nconnection: close\r\n[\s\S]*"payload_too_large"/i);
  });

  it('a head with a bare LF line end is refused with 400, and the connection closes', async () => {
    const text = await exchange('POST /v1/secrets/create HTTP/1.1\r\nHost: x\nContent-Length: 0\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400 [\s\S]*\r\nconnection: close\r\n/i);
  });

  it('a head or a body that does not arrive in time is answered 408, and the connection closes', async () => {
    const heads = await exchange('POST /v1/secrets/create HTTP/1.1\r\nHost: x\r\n');
    expect(heads).toMatch(/^HTTP\/1\.1 408 [\s\S]*\r\nconnection: close\r\n/i);
    const bodies = await exchange(`${head(authorized(), 100)}{"name":`);
    expect(bodies).toMatch(/^HTTP\/1\.1 408 [\s\S]*\r\nconnection: close\r\n/i);
  });

  it('a connection past the cap is answered 503 with retry-after: 1, then closed', async () => {
    const capped = await startServer({ env, maxConnections: 2 });
    const { port } = new URL(capped.url);
    const held = [connect(Number(port), '127.0.0.1'), connect(Number(port), '127.0.0.1')];
    try {
      await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const text = await exchange(head(authorized(), 2), undefined, capped.url);
      expect(text).toMatch(/^HTTP\/1\.1 503 [\s\S]*\r\nretry-after: 1\r\n[\s\S]*"unavailable"/i);
      expect(text).toMatch(/\r\nconnection: close\r\n/i);
    } finally {
      for (const socket of held) socket.destroy();
      await capped.cleanup();
    }
  });
});
