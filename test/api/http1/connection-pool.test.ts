// The pool against real servers on 127.0.0.1: node's own http server, and raw TCP servers that
// misbehave on purpose.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionPool, idleMsOf, MAX_IDLE_MS, type PooledRequest } from '../../../src/api/http1/connection-pool.js';
import { rawHttpServer } from '../../helpers/raw-http-server.js';

const servers: Array<HttpServer | TcpServer> = [];
const pools: ConnectionPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) pool.destroy(new Error('test over'));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          (server as HttpServer).closeAllConnections?.();
          server.close(resolve);
        }),
    ),
  );
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (up to 5 s) until `read()` gives `expected`, and returns what it gave last. */
async function settlesTo<T>(read: () => T, expected: T): Promise<T> {
  for (const deadline = Date.now() + 5_000; read() !== expected && Date.now() < deadline; ) await sleep(5);
  return read();
}

async function listen<S extends HttpServer | TcpServer>(server: S): Promise<{ server: S; port: number; connections: () => number }> {
  let connections = 0;
  server.on('connection', () => (connections += 1));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

function poolTo(port: number, maxSockets = 8): ConnectionPool {
  const pool = new ConnectionPool(() => connect({ host: '127.0.0.1', port }), maxSockets);
  pools.push(pool);
  return pool;
}

const post = (body = '{}', timeoutMs = 5_000): PooledRequest => ({
  head: `POST /v1/x HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
  body,
  timeoutMs,
});

/** A node http server echoing the request body as {"echo": body}, after `delayMs`. */
function echoServer(delayMs = 0): HttpServer {
  return createHttpServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ echo: body }));
      }, delayMs);
    });
  });
}

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}';

/** A pool to an echo server that keeps every socket it makes, to look at them. */
async function watchedPool(): Promise<{ pool: ConnectionPool; sockets: Socket[] }> {
  const { port } = await listen(echoServer());
  const sockets: Socket[] = [];
  const pool = new ConnectionPool(() => {
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    return socket;
  }, 4);
  pools.push(pool);
  return { pool, sockets };
}

/** unref() leaves no handle that keeps the event loop alive: hasRef() is node's view of it. */
const holdsProcess = (socket: Socket): boolean => (socket as unknown as { _handle: { hasRef(): boolean } })._handle.hasRef();

describe('ConnectionPool', () => {
  it('sends requests one after another over one kept-alive connection', async () => {
    const { port, connections } = await listen(echoServer());
    const pool = poolTo(port);
    for (let i = 0; i < 5; i++) {
      const answer = await pool.request(post(JSON.stringify({ i, name: 'Zoë' })));
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ echo: JSON.stringify({ i, name: 'Zoë' }) });
    }
    expect(connections()).toBe(1);
  });

  it('opens at most maxSockets connections; the requests beyond wait their turn', async () => {
    const { port, connections } = await listen(echoServer(20));
    const pool = poolTo(port, 2);
    const answers = await Promise.all(Array.from({ length: 7 }, (_, i) => pool.request(post(String(i)))));
    expect(answers.map((answer) => JSON.parse(answer.text).echo)).toEqual(['0', '1', '2', '3', '4', '5', '6']);
    expect(connections()).toBe(2);
  });

  it('reads chunked answers and skips interim 1xx answers (node http server)', async () => {
    const { port } = await listen(
      createHttpServer((request, response) => {
        request.resume().on('end', () => {
          response.writeEarlyHints({ link: '</style.css>; rel=preload' });
          response.writeHead(201, { 'content-type': 'application/json' });
          response.write('{"part":');
          setTimeout(() => response.end('"two"}'), 10);
        });
      }),
    );
    const answer = await poolTo(port).request(post());
    expect(answer.status).toBe(201);
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(JSON.parse(answer.text)).toEqual({ part: 'two' });
  });

  it('does not keep a connection the server says it will close (Keep-Alive: timeout=1 leaves no time)', async () => {
    const { server, port, connections } = await listen(echoServer());
    server.keepAliveTimeout = 1_000;
    const pool = poolTo(port);
    await pool.request(post());
    await pool.request(post());
    expect(connections()).toBe(2);
  });

  it('drops an idle connection the server closed, and sends the next request on a new one', async () => {
    const { port, connections } = await listen(
      rawHttpServer((socket) => {
        socket.write(OK);
        setTimeout(() => socket.end(), 20);
      }),
    );
    const pool = poolTo(port);
    expect((await pool.request(post())).text).toBe('{}');
    await sleep(80);
    expect((await pool.request(post())).text).toBe('{}');
    expect(connections()).toBe(2);
  });

  it('answers Connection: close by opening a new connection for the next request', async () => {
    const { port, connections } = await listen(rawHttpServer((socket) => socket.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}')));
    const pool = poolTo(port);
    await pool.request(post());
    await pool.request(post());
    expect(connections()).toBe(2);
  });

  it('reads a body that ends with the connection', async () => {
    const { port } = await listen(rawHttpServer((socket) => socket.end('HTTP/1.1 200 OK\r\n\r\n{"till":"close"}')));
    expect(JSON.parse((await poolTo(port).request(post())).text)).toEqual({ till: 'close' });
  });

  it('fails with ECONNRESET when the connection closes in the middle of an answer, then recovers', async () => {
    const { port } = await listen(
      rawHttpServer((socket, count) => {
        if (count === 1) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{"a"');
        else socket.write(OK);
      }),
    );
    const pool = poolTo(port);
    await expect(pool.request(post())).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect((await pool.request(post())).text).toBe('{}');
  });

  it('fails with ECONNRESET when the connection closes before any answer', async () => {
    const { port } = await listen(rawHttpServer((socket) => socket.destroy()));
    await expect(poolTo(port).request(post())).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('fails a malformed answer and does not use its connection again', async () => {
    const { port, connections } = await listen(
      rawHttpServer((socket, count) => socket.write(count === 1 ? 'HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n' : OK)),
    );
    const pool = poolTo(port);
    await expect(pool.request(post())).rejects.toMatchObject({ code: 'MALFORMED_RESPONSE' });
    expect((await pool.request(post())).text).toBe('{}');
    expect(connections()).toBe(2);
  });

  it('never hands bytes that follow an answer to the next request as its answer', async () => {
    const { port, connections } = await listen(
      rawHttpServer((socket, count) => socket.write(count === 1 ? `${OK}HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nWRONG` : OK)),
    );
    const pool = poolTo(port, 1);
    const [first, second] = await Promise.all([pool.request(post()), pool.request(post())]);
    expect([first.text, second.text]).toEqual(['{}', '{}']);
    expect(connections()).toBe(2);
  });

  it('drops a connection on which bytes arrive while no request waits', async () => {
    const { port, connections } = await listen(
      rawHttpServer((socket, count) => {
        socket.write(OK);
        if (count === 1) setTimeout(() => socket.write('HTTP/1.1 200 OK\r\n'), 10);
      }),
    );
    const pool = poolTo(port);
    await pool.request(post());
    await sleep(50);
    expect((await pool.request(post())).text).toBe('{}');
    expect(connections()).toBe(2);
  });

  it('times out the whole exchange and closes its connection', async () => {
    let closed = false;
    const { port } = await listen(
      rawHttpServer((socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{');
        socket.on('close', () => (closed = true));
      }),
    );
    await expect(poolTo(port).request(post('{}', 100))).rejects.toMatchObject({ code: 'CLIENT_TIMEOUT' });
    await sleep(50);
    expect(closed).toBe(true);
  });

  it('reports a refused connection with its code', async () => {
    const { server, port } = await listen(echoServer());
    await new Promise((resolve) => server.close(resolve));
    await expect(poolTo(port).request(post())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('close() ends idle connections and refuses new requests', async () => {
    let closed = 0;
    const { port } = await listen(rawHttpServer((socket) => (socket.write(OK), socket.once('close', () => (closed += 1)))));
    const pool = poolTo(port);
    await pool.request(post());
    pool.close();
    await sleep(50);
    expect(closed).toBe(1);
    await expect(pool.request(post())).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });

  it('close() fails the requests still waiting for a connection, and lets the one in flight finish', async () => {
    const { port } = await listen(echoServer(50));
    const pool = poolTo(port, 1);
    const inFlight = pool.request(post('{"a":1}'));
    const waiting = pool.request(post());
    pool.close();
    await expect(waiting).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
    expect(JSON.parse((await inFlight).text)).toEqual({ echo: '{"a":1}' });
  });

  it('keeps a time limit beyond setTimeout’s range instead of firing at once', async () => {
    const { port } = await listen(echoServer(20));
    expect((await poolTo(port).request(post('{}', 2 ** 32))).status).toBe(200);
  });

  it('fails only the request whose connection could not be made when opening it throws', async () => {
    const pool = new ConnectionPool(() => {
      throw Object.assign(new Error('no socket'), { code: 'EMFILE' });
    }, 2);
    pools.push(pool);
    await expect(pool.request(post())).rejects.toMatchObject({ code: 'EMFILE' });
  });

  it('destroy() fails the requests in flight and those waiting with the given error', async () => {
    const { port } = await listen(echoServer(1_000));
    const pool = poolTo(port, 1);
    const inFlight = pool.request(post());
    const waiting = pool.request(post());
    await sleep(20);
    pool.destroy(Object.assign(new Error('gone'), { code: 'CLIENT_DESTROYED' }));
    await expect(inFlight).rejects.toMatchObject({ code: 'CLIENT_DESTROYED' });
    await expect(waiting).rejects.toMatchObject({ code: 'CLIENT_DESTROYED' });
  });

  describe('preconnect', () => {
    /** The order in which the server accepted connections, and on which of them each request came. */
    function orderedServer(): { server: TcpServer; requestsOn: number[] } {
      const requestsOn: number[] = [];
      let accepted = 0;
      const server = createTcpServer((socket) => {
        const number = ++accepted;
        socket.on('data', () => {
          requestsOn.push(number);
          socket.write(OK);
        });
        socket.on('error', () => undefined);
      });
      return { server, requestsOn };
    }

    it('opens connections up to the count, and the requests that follow use them instead of opening more', async () => {
      const { port, connections } = await listen(echoServer(20));
      const pool = poolTo(port, 8);
      expect(pool.preconnect(5)).toBe(5);
      expect(await settlesTo(connections, 5)).toBe(5);
      const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => pool.request(post(String(i)))));
      expect(answers.map((answer) => JSON.parse(answer.text).echo)).toEqual(['0', '1', '2', '3', '4']);
      expect(connections()).toBe(5);
    });

    it('only tops up to the count, never beyond maxSockets', async () => {
      const { port, connections } = await listen(echoServer());
      const pool = poolTo(port, 4);
      await pool.request(post());
      expect(pool.preconnect(3)).toBe(2);
      expect(pool.preconnect(3)).toBe(0);
      expect(pool.preconnect(10)).toBe(1);
      expect(await settlesTo(connections, 4)).toBe(4);
    });

    it('hands out a connection already used before the ones it opened', async () => {
      const { server, requestsOn } = orderedServer();
      const { port, connections } = await listen(server);
      const pool = poolTo(port, 4);
      await pool.request(post());
      expect(pool.preconnect(4)).toBe(3);
      expect(await settlesTo(connections, 4)).toBe(4);
      await pool.request(post());
      expect(requestsOn).toEqual([1, 1]);
      await Promise.all([pool.request(post()), pool.request(post()), pool.request(post())]);
      expect(requestsOn.slice(2).sort((a, b) => a - b)).toEqual([1, 2, 3]);
    });

    it('leaves the error to the request when nobody listens, and nothing goes unhandled', async () => {
      const { server, port } = await listen(echoServer());
      await new Promise((resolve) => server.close(resolve));
      const pool = poolTo(port);
      expect(pool.preconnect(3)).toBe(3);
      await sleep(20);
      await expect(pool.request(post())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    });

    it('opens nothing once the pool is closed, or when making a connection throws', async () => {
      const { port, connections } = await listen(echoServer());
      const closed = poolTo(port);
      closed.close();
      expect(closed.preconnect(3)).toBe(0);
      const failing = new ConnectionPool(() => {
        throw Object.assign(new Error('no socket'), { code: 'EMFILE' });
      }, 4);
      pools.push(failing);
      expect(failing.preconnect(3)).toBe(0);
      await sleep(20);
      expect(connections()).toBe(0);
    });

    it('keeps the connections it opened from holding the process open', async () => {
      const { pool, sockets } = await watchedPool();
      pool.preconnect(2);
      await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
      expect(sockets.map(holdsProcess)).toEqual([false, false]);
    });
  });

  describe('an answer larger than maxBodyBytes', () => {
    const limited = (maxBodyBytes: number): PooledRequest => ({ ...post(), maxBodyBytes });
    it.each([
      ['declared by Content-Length', (socket: Socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 999999999\r\n\r\n')],
      [
        'chunked, without end',
        (socket: Socket) => socket.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${`400\r\n${'x'.repeat(1024)}\r\n`.repeat(8)}`),
      ],
      ['until the connection ends', (socket: Socket) => socket.write(`HTTP/1.1 200 OK\r\n\r\n${'x'.repeat(8 * 1024)}`)],
    ])('fails with RESPONSE_TOO_LARGE: %s', async (_, answer) => {
      const { port } = await listen(rawHttpServer(answer));
      await expect(poolTo(port).request(limited(4096))).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    });

    it('takes a body of exactly the limit', async () => {
      const { port } = await listen(rawHttpServer((socket) => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n${'x'.repeat(4096)}`)));
      expect((await poolTo(port).request(limited(4096))).text).toHaveLength(4096);
    });
  });

  it.each([
    ['timeout=5', 4_000],
    ['timeout=999999999', MAX_IDLE_MS],
    [`timeout=${'9'.repeat(400)}`, MAX_IDLE_MS],
    ['max=3', undefined],
  ])('keeps an idle connection for Keep-Alive: %s at most %s ms', (hint, expected) => {
    expect(idleMsOf({ 'keep-alive': hint })).toBe(expected);
  });

  it('keeps an idle connection from holding the process open', async () => {
    const { pool, sockets } = await watchedPool();
    await pool.request(post());
    expect(sockets.map(holdsProcess)).toEqual([false]);
  });
});
