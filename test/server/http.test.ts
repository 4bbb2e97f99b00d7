// The request path of src/server/http.ts, and its answers before a body is read (its operations
// are tested through the server elsewhere).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathOfTarget } from '../../src/server/http.js';
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

describe('answers given before the body', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    plane = await startServer();
  });
  afterAll(async () => plane?.cleanup());

  /** Writes `request` on a fresh connection; resolves with everything received once the server closes it. */
  function exchange(request: string, then?: (socket: Socket, received: () => string) => void): Promise<string> {
    const { port } = new URL(plane.url);
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

  it('a 401 while the body is still on its way closes the connection', async () => {
    const text = await exchange(`${head('', 100)}{"name":`);
    expect(text).toMatch(/^HTTP\/1\.1 401 [\s\S]*\r\nconnection: close\r\n/i);
  });

  it('a client waiting on 100-continue is told to send the body only after its credential passed', async () => {
    const refused = await exchange(head('Expect: 100-continue\r\n', 2));
    expect(refused).toMatch(/^HTTP\/1\.1 401 /);
    const body = '{"name":"CONTINUED","value":"v"}';
    const accepted = await exchange(
      head(`Authorization: Bearer ${plane.tokens.dev}\r\nExpect: 100-continue\r\nConnection: close\r\n`, body.length),
      (socket, received) => {
        if (received() === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write(body);
      },
    );
    expect(accepted).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 [\s\S]*"CONTINUED"/);
  });
});
