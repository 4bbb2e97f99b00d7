// TunnelSocket against scripted proxies on 127.0.0.1: what it asks, what it waits for, and how
// each way a proxy can go wrong ends (one coded error, the connection closed).
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TunnelSocket } from '../../../src/api/http1/tunnel.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A "proxy" that hands everything it receives to `script`. */
async function scriptedProxy(script: (socket: Socket, received: () => string) => void): Promise<number> {
  server = createServer((socket) => {
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    script(socket, () => received);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Stands in for TLS where the tunnel must not open: opening it fails the test with this. */
function neverOpened(raw: Socket): Socket {
  raw.destroy(new Error('the tunnel opened'));
  return raw;
}

function tunnel(port: number, authorization?: string, wrap: (raw: Socket) => Socket = (raw) => raw): TunnelSocket {
  return new TunnelSocket({
    proxySocket: connect(port, '127.0.0.1'),
    authority: 'api.example.test:443',
    ...(authorization ? { authorization } : {}),
    proxyLabel: `http://127.0.0.1:${port}`,
    // No TLS here: the tunnel's own bytes are what is checked.
    wrap,
  });
}

const failure = (socket: TunnelSocket): Promise<Error & { code?: string }> => new Promise((resolve) => socket.on('error', resolve));

describe('TunnelSocket', () => {
  it('asks CONNECT (with the credentials), holds what is written until the answer, then carries both ways', async () => {
    let seenBeforeAnswer = '';
    const port = await scriptedProxy((socket, received) => {
      let answered = false;
      socket.on('data', () => {
        if (!answered && received().includes('\r\n\r\n')) {
          // Answered a little later, so that the write below is made while the tunnel is not open.
          answered = true;
          setTimeout(() => {
            seenBeforeAnswer = received();
            socket.write('HTTP/1.1 200 Connection Established\r\nVia: test\r\n\r\n');
          }, 20);
        } else if (answered && received().endsWith('ping')) {
          socket.write('pong');
        }
      });
    });
    const socket = tunnel(port, 'Basic Y2k6cHc=');
    socket.write('ping');
    const answer = await new Promise<string>((resolve) => socket.on('data', (chunk: Buffer) => resolve(chunk.toString())));
    expect(seenBeforeAnswer).toBe('CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\nProxy-Authorization: Basic Y2k6cHc=\r\n\r\n');
    expect(answer).toBe('pong');
    socket.destroy();
  });

  it('an answer that arrives a byte at a time', async () => {
    const port = await scriptedProxy((socket, received) => {
      const bytes = [...'HTTP/1.0 200 OK\r\n\r\n'];
      const next = (): void => void (bytes.length > 0 && (socket.write(bytes.shift()!), setTimeout(next, 1)));
      next();
      socket.on('data', () => received().endsWith('ping') && socket.write('pong'));
    });
    const socket = tunnel(port);
    socket.write('ping');
    const data = await new Promise<string>((resolve) => socket.on('data', (chunk: Buffer) => resolve(chunk.toString())));
    expect(data).toBe('pong');
    socket.destroy();
  });

  it.each<[string, string, string, RegExp]>([
    ['a refusal', 'HTTP/1.1 403 Forbidden\r\n\r\n', 'PROXY_REFUSED', /refused the tunnel to api\.example\.test:443 \(403 Forbidden\)/],
    ['credentials wanted', 'HTTP/1.1 407 Proxy Authentication Required\r\n\r\n', 'PROXY_REFUSED', /wants credentials \(407 Proxy Authentication Required\)/],
    [
      'an upstream the proxy cannot reach',
      'HTTP/1.1 502 Bad Gateway\r\n\r\n',
      'PROXY_UNAVAILABLE',
      /could not open the tunnel to api\.example\.test:443 \(502 Bad Gateway\)/,
    ],
    [
      'the same, as tinyproxy says it',
      'HTTP/1.0 500 Unable to connect\r\n\r\n',
      'PROXY_UNAVAILABLE',
      /could not open the tunnel to api\.example\.test:443 \(500 Unable to connect\)/,
    ],
    [
      'a proxy that cannot tunnel at all (501): not worth another try',
      'HTTP/1.1 501 Not Implemented\r\n\r\n',
      'PROXY_REFUSED',
      /refused the tunnel to api\.example\.test:443 \(501 Not Implemented\)/,
    ],
    ['credentials wanted, as 401', 'HTTP/1.1 401 Unauthorized\r\n\r\n', 'PROXY_REFUSED', /wants credentials \(401 Unauthorized\)/],
    ['not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n', 'PROXY_PROTOCOL', /did not answer CONNECT with HTTP/],
    ['bytes after the answer', 'HTTP/1.1 200 OK\r\n\r\nearly', 'PROXY_PROTOCOL', /sent bytes after its answer/],
    ['a header without end', `HTTP/1.1 200 OK\r\nX: ${'a'.repeat(20_000)}`, 'PROXY_PROTOCOL', /more than 16384 bytes of header/],
  ])('%s: a coded error naming the proxy', async (_name, reply, code, message) => {
    const port = await scriptedProxy((socket) => socket.write(reply));
    const socket = tunnel(port, undefined, neverOpened);
    const error = await failure(socket);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(`http://127.0.0.1:${port}`);
    expect(socket.destroyed).toBe(true);
  });

  it('the proxy closes before answering', async () => {
    const port = await scriptedProxy((socket) => socket.end());
    const error = await failure(tunnel(port, undefined, neverOpened));
    expect(error.code).toBe('PROXY_PROTOCOL');
    expect(error.message).toMatch(/closed the connection before answering CONNECT/);
  });

  it('no proxy there', async () => {
    const port = await scriptedProxy(() => undefined);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const error = await failure(tunnel(port));
    expect(error.code).toBe('PROXY_UNREACHABLE');
    expect(error.message).toBe(`could not connect to the proxy http://127.0.0.1:${port} (ECONNREFUSED)`);
  });

  it('credentials it sent and the proxy refused: said so, not asked for again', async () => {
    const port = await scriptedProxy((socket) => socket.write('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n'));
    const error = await failure(tunnel(port, 'Basic Y2k6cHc=', neverOpened));
    expect(error.message).toBe(`the proxy http://127.0.0.1:${port} refused the credentials in the proxy URL (407 Proxy Authentication Required)`);
  });

  it('writes queued before a failed tunnel are called back with an error, not left hanging', async () => {
    const port = await scriptedProxy((socket) => setTimeout(() => socket.write('HTTP/1.1 502 Bad Gateway\r\n\r\n'), 20));
    const socket = tunnel(port);
    socket.on('error', () => undefined);
    const written = await new Promise<Error | null | undefined>((resolve) => socket.write('request', resolve));
    expect(written).toBeInstanceOf(Error);
  });
});
