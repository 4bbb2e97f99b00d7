// The plain path (node:http, AGENTFORM_OPTIMIZATIONS=off) beside the hand-written one, through the
// transport against real servers on 127.0.0.1: where behaviour is the same, one table runs both.
import { createServer as createHttpServer, type Server as HttpServer, type RequestListener } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NodeHttpExchanger } from '../../src/api/node-http-exchanger.js';
import { Transport, type SendOptions } from '../../src/api/transport.js';
import type { ApiError } from '../../src/errors.js';
import { listenOnLoopback } from '../helpers/loopback-listen.js';
import { rawHttpServer } from '../helpers/raw-http-server.js';
import { rejectionOf } from './support.js';

const closers: Array<() => Promise<void>> = [];
const transports: Transport[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(transports.splice(0).map((transport) => transport.destroy()));
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Both paths: the setting of AGENTFORM_OPTIMIZATIONS that selects each. */
const PATHS = [
  ['hand-written', 'on'],
  ['node:http', 'off'],
] as const;

async function listen(server: HttpServer | TcpServer): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  server.on('connection', () => (connections += 1));
  const { port, close } = await listenOnLoopback(server);
  closers.push(close);
  return { url: `http://127.0.0.1:${port}`, connections: () => connections, close };
}

const httpServer = (handler: RequestListener) => listen(createHttpServer(handler));

function transportTo(url: string, optimizations: string): Transport {
  vi.stubEnv('AGENTFORM_OPTIMIZATIONS', optimizations);
  const transport = new Transport(url);
  transports.push(transport);
  return transport;
}

const send = (transport: Transport, options: Partial<SendOptions> = {}) =>
  transport.send({ path: '/v1/x', headers: { accept: 'application/json' }, body: '{}', timeoutMs: 5_000, rpc: 'agents.list', requestId: 'r1', ...options });

describe.each(PATHS)('the %s path', (_, optimizations) => {
  it('gives status, headers (lower-case, cookies as a list) and the body decoded as UTF-8', async () => {
    const { url } = await httpServer((_request, response) => {
      response.writeHead(429, [
        ['Content-Type', 'application/json'],
        ['Retry-After', '3'],
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
      ]);
      response.end('{"name":"Zoë 🚀"}');
    });
    const exchange = await send(transportTo(url, optimizations));
    expect(exchange.status).toBe(429);
    expect(exchange.headers['retry-after']).toBe('3');
    expect(exchange.headers['content-type']).toBe('application/json');
    expect(exchange.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(Object.getPrototypeOf(exchange.headers)).toBeNull();
    expect(exchange.text).toBe('{"name":"Zoë 🚀"}');
  });

  it('sends the head and body the transport wrote, and reuses one kept-alive connection', async () => {
    const seen: Array<{ headers: string[]; body: string }> = [];
    const { url, connections } = await httpServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        seen.push({ headers: request.rawHeaders, body });
        response.end('{}');
      });
    });
    const transport = transportTo(url, optimizations);
    await send(transport, { body: '{"name":"Zoë"}' });
    await send(transport, { body: '{"name":"Zoë"}' });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual({
      headers: ['accept', 'application/json', 'content-length', '15', 'Host', url.slice('http://'.length), 'Connection', 'keep-alive'],
      body: '{"name":"Zoë"}',
    });
    expect(seen[1]).toEqual(seen[0]);
    expect(connections()).toBe(1);
  });

  it.each<[string, (url: string) => Partial<SendOptions>, RequestListener | undefined, string, RegExp]>([
    ['no answer in time', () => ({ timeoutMs: 100 }), () => undefined, 'timeout', /within 100 ms/],
    [
      'a declared length beyond the limit',
      () => ({ maxResponseBytes: 1024 }),
      (_request, response) => response.end('x'.repeat(2048)),
      'response_too_large',
      /exceeded 1 KiB/,
    ],
    [
      'a chunked body growing beyond the limit',
      () => ({ maxResponseBytes: 1024 }),
      (_request, response) => {
        response.write('x'.repeat(700));
        setTimeout(() => response.end('x'.repeat(700)), 20);
      },
      'response_too_large',
      /AGENTFORM_MAX_RESPONSE_BYTES/,
    ],
    ['a connection closed before the answer', () => ({}), (request) => request.socket.destroy(), 'connection_reset', /closed before an answer/],
  ])('fails %s with the same transport code', async (_case, options, handler, code, message) => {
    const { url } = await httpServer(handler ?? (() => undefined));
    const failure = (await rejectionOf(send(transportTo(url, optimizations), options(url)))) as ApiError;
    expect(failure).toMatchObject({ status: 0, code });
    expect(failure.message).toMatch(message);
  });

  it('refuses an answer whose lines end with a bare LF', async () => {
    const { url } = await listen(rawHttpServer((socket) => socket.write('HTTP/1.1 200 OK\nContent-Length: 2\n\n{}')));
    const failure = (await rejectionOf(send(transportTo(url, optimizations)))) as ApiError;
    expect(failure).toMatchObject({ status: 0, code: 'network' });
    expect(failure.message).toMatch(/not valid HTTP\/1\.1/);
  });

  it('reports a refused connection as connection_refused', async () => {
    const { url, close } = await listen(createTcpServer());
    await close();
    expect(await rejectionOf(send(transportTo(url, optimizations)))).toMatchObject({ status: 0, code: 'connection_refused' });
  });

  it('close() ends the kept-alive connections, and later requests are refused', async () => {
    const server = createHttpServer((_request, response) => response.end('{}'));
    const { url } = await listen(server);
    const transport = transportTo(url, optimizations);
    await send(transport);
    await transport.close();
    for (const deadline = Date.now() + 5_000; Date.now() < deadline; ) {
      const open = await new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
      if (open === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count)))).toBe(0);
    expect(await rejectionOf(send(transport))).toMatchObject({ code: 'cancelled' });
  });

  it('destroy() fails the request in flight as cancelled', async () => {
    const { url } = await httpServer(() => undefined);
    const transport = transportTo(url, optimizations);
    const pending = rejectionOf(send(transport));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await transport.destroy();
    expect(await pending).toMatchObject({ status: 0, code: 'cancelled' });
  });
});

describe('NodeHttpExchanger', () => {
  it('opens nothing ahead: preconnect is left to node’s agent', () => {
    const exchanger = new NodeHttpExchanger(() => {
      throw new Error('no connection is made');
    }, 4);
    expect(exchanger.preconnect(4)).toBe(0);
    exchanger.close();
  });
});
