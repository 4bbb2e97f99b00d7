// What the tests of both HTTP/1.1 servers (test/server/http1/connection.test.ts, the hand-written
// one; test/server/http-server.test.ts, node's) drive them with: a handler written against
// src/server/http-port.ts that answers every request with what it was, raw sockets, and requests.
import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach } from 'vitest';
import { BodyTooLarge, type HttpRequest, type HttpResponse, type RequestHandler, type ServerLimits } from '../../src/server/http-port.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers every request with what it was: method, target, fields, body; some paths behave otherwise. */
export async function handler(req: HttpRequest, res: HttpResponse): Promise<void> {
  if (req.url === '/early') {
    res.writeHead(401, { 'content-type': 'text/plain', 'content-length': 2 });
    return res.end('no');
  }
  if (req.url.startsWith('/slow/')) await sleep(Number(req.url.slice(6)));
  if (req.url.startsWith('/slow-body/')) await sleep(Number(req.url.slice(11)));
  if (req.url === '/lose') return res.destroy();
  if (req.url === '/large-answer') {
    // A 64 KB answer, without reading the (empty) body.
    const text = 'b'.repeat(64 * 1024);
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': text.length });
    return res.end(text);
  }
  if (req.url === '/huge-answer') {
    // 8 MB: more than the sockets' buffers hold, so part of it waits in the server's memory.
    const text = 'h'.repeat(HUGE_ANSWER_BYTES);
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': text.length });
    return res.end(text);
  }
  if (req.url === '/unframed') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    return res.end('until the connection ends');
  }
  if (req.url === '/bad-field') {
    try {
      res.writeHead(200, { 'x-bad': 'a\r\nInjected: yes' });
    } catch {
      res.writeHead(500, { 'content-length': 0 });
      return res.end();
    }
  }
  if (req.url === '/twice') {
    const [first, second] = await Promise.all([req.body(), req.body()]);
    const text = `${first.toString()}|${second.toString()}`;
    res.writeHead(200, { 'content-length': Buffer.byteLength(text) });
    return res.end(text);
  }
  let body: string;
  try {
    body = (await req.body()).toString();
  } catch (error) {
    if (res.destroyed) return;
    res.writeHead(error instanceof BodyTooLarge ? 413 : 500, { 'content-length': 0, connection: 'close' });
    return res.end();
  }
  const text = JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  if (req.url === '/parts') {
    res.write(text.slice(0, 5));
    await sleep(5);
    return res.end(text.slice(5));
  }
  res.end(text);
}

/** A raw connection: everything it receives, and when it closed. */
export interface Raw {
  socket: Socket;
  received: () => string;
  closed: Promise<string>;
  /** Resolves once the text received matches. */
  until: (pattern: RegExp, timeoutMs?: number) => Promise<string>;
  /** Resolves once `enough` says the text received is enough. */
  untilEnough: (enough: (text: string) => boolean, timeoutMs?: number) => Promise<string>;
}

function rawConnection(port: number, sockets: Socket[]): Promise<Raw> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let text = '';
    const waiters: Array<() => void> = [];
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      for (const waiter of waiters.splice(0)) waiter();
    });
    socket.on('error', () => undefined);
    const closed = new Promise<string>((done) => socket.on('close', () => done(text)));
    const untilEnough = (enough: (text: string) => boolean, timeoutMs = 3_000, what = 'enough') =>
      new Promise<string>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`waited for ${what} and got ${JSON.stringify(text.slice(0, 2_000))}`)), timeoutMs);
        const check = () => {
          if (enough(text)) {
            clearTimeout(timer);
            done(text);
          } else waiters.push(check);
        };
        check();
      });
    const until = (pattern: RegExp, timeoutMs = 3_000) => untilEnough((received) => pattern.test(received), timeoutMs, String(pattern));
    socket.on('connect', () => resolve({ socket, received: () => text, closed, until, untilEnough }));
  });
}

export const HUGE_ANSWER_BYTES = 8 * 1024 * 1024;
export const bodyLengthOf = (text: string): number => text.length - text.indexOf('\r\n\r\n') - 4;

export const post = (path: string, body: string, extra = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
export const answers = (text: string): string[] => text.split(/(?=HTTP\/1\.1 \d{3} )/).filter(Boolean);
export const bodyOf = (answer: string): { method: string; url: string; headers: Record<string, string>; body: string } =>
  JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

/**
 * Starts servers made by `create` with `limits` (each test may change some), answering with
 * `handler`; each test's servers and raw connections are closed after it.
 */
export function httpHarness<S extends Server>(create: (limits: ServerLimits, onRequest: RequestHandler) => S, limits: ServerLimits) {
  const servers: S[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve)))));
  });

  async function start(changed: Partial<ServerLimits> = {}): Promise<{ server: S; port: number; requests: string[]; connections: () => number }> {
    const requests: string[] = [];
    let connections = 0;
    const server = create({ ...limits, ...changed }, (req, res) => void handler(req, res));
    // What observes an http.Server sees this one's events.
    server.on('request', (req: HttpRequest) => requests.push(`${req.method} ${req.url}`));
    server.on('connection', () => (connections += 1));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as AddressInfo).port, requests, connections: () => connections };
  }

  const raw = (port: number): Promise<Raw> => rawConnection(port, sockets);

  /** Asks for the 8 MB answer and reads nothing of it for `unreadMs` (half-closing first when `end`). */
  async function hugeAnswerReadLate(port: number, unreadMs: number, end = false): Promise<Raw> {
    const client = await raw(port);
    client.socket.pause();
    if (end) client.socket.end(post('/huge-answer', ''));
    else client.socket.write(post('/huge-answer', ''));
    await sleep(unreadMs);
    client.socket.resume();
    return client;
  }

  return { start, raw, hugeAnswerReadLate };
}
