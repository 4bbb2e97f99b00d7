// A slow client cannot hold a connection of the local control plane forever: headers that never
// finish, and a body that never finishes, are cut off by the server's timeouts (shortened here
// through `timeouts`; the defaults are 10 s for headers and 30 s for a whole request).
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { DEFAULT_SERVER_TIMEOUTS } from '../../src/server/http.js';

const HEADERS_MS = 400;
const REQUEST_MS = 800;

interface Closed {
  afterMs: number;
  received: string;
}

/** Opens a socket, runs `feed` (which may write slowly, forever), and resolves when the server closes it. */
function holdOpen(url: string, feed: (socket: Socket) => void, giveUpMs: number): Promise<Closed> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    let received = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server still held the connection after ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', () => undefined); // a reset is a close too
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ afterMs: Date.now() - started, received });
    });
    socket.on('connect', () => feed(socket));
  });
}

/** Writes `text` one character every `everyMs`, then keeps trickling spaces, never finishing. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer);
    socket.write(i < text.length ? text[i++]! : ' ');
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

describe('slow clients', () => {
  let plane: LocalControlPlane;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agentform-slow-'));
    plane = await startLocalControlPlane({ dataDir, timeouts: { headersMs: HEADERS_MS, requestMs: REQUEST_MS } });
  });
  afterAll(async () => {
    await plane?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('has sane defaults', () => {
    expect(DEFAULT_SERVER_TIMEOUTS.headersMs).toBeGreaterThan(0);
    expect(DEFAULT_SERVER_TIMEOUTS.headersMs).toBeLessThanOrEqual(30_000);
    expect(DEFAULT_SERVER_TIMEOUTS.requestMs).toBeGreaterThan(0);
    expect(DEFAULT_SERVER_TIMEOUTS.requestMs).toBeLessThanOrEqual(60_000);
  });

  it('closes a connection that never sends anything', async () => {
    const closed = await holdOpen(plane.url, () => undefined, 10_000);
    expect(closed.afterMs).toBeLessThan(HEADERS_MS * 5);
  });

  it('closes a connection whose headers trickle in and never end', async () => {
    const closed = await holdOpen(plane.url, (socket) => trickle(socket, 'POST /v1/agents/list HTTP/1.1\r\nHost: x\r\nX-Slow: ', 20), 10_000);
    expect(closed.afterMs).toBeLessThan(HEADERS_MS * 5);
  });

  it('closes a request whose body never finishes (408)', async () => {
    const token = plane.tokens.dev!;
    const closed = await holdOpen(
      plane.url,
      (socket) => {
        socket.write(
          `POST /v1/secrets/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`,
        );
        trickle(socket, '', 50);
      },
      10_000,
    );
    expect(closed.afterMs).toBeLessThan(REQUEST_MS * 5);
    expect(closed.received).toMatch(/^HTTP\/1\.1 408/);
  });

  it('still answers afterwards', async () => {
    const response = await fetch(`${plane.url}/v1/organizations/get`, { method: 'POST', headers: { authorization: `Bearer ${plane.tokens.dev}` } });
    expect(response.status).toBe(200);
  });
});
