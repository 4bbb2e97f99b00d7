// A forward HTTP proxy on 127.0.0.1 for tests, as a corporate one behaves: CONNECT tunnels and
// absolute-form requests, optionally asking for Basic credentials (407). Every host name it is
// asked for is taken to be 127.0.0.1 (the test's own servers): nothing leaves this machine.
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { listenOnLoopback } from './loopback-listen.js';

export interface ProxyVisit {
  /** `CONNECT api.example.test:443` or `POST http://api.example.test:80/v1/...`. */
  line: string;
  /** The Proxy-Authorization it came with. */
  authorization: string | undefined;
}

export interface TestProxy {
  url: string;
  /** Every request it was sent, in order. */
  visits: ProxyVisit[];
  close(): Promise<void>;
}

const REFUSE_407 = 'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n';

/**
 * `credentials`: `user:password` the proxy insists on; `refusal`: how it refuses a request without
 * them, 407 with Proxy-Authenticate or (as tinyproxy does) 401 with a Basic WWW-Authenticate;
 * `unavailableConnects`: how many CONNECTs, first, it answers 502 (an upstream it cannot reach).
 */
export async function startTestProxy(options: { credentials?: string; refusal?: 401 | 407; unavailableConnects?: number } = {}): Promise<TestProxy> {
  let unavailable = options.unavailableConnects ?? 0;
  const expected = options.credentials === undefined ? undefined : `Basic ${Buffer.from(options.credentials).toString('base64')}`;
  const visits: ProxyVisit[] = [];
  // The tunnels' sockets to the servers behind: ended with the proxy.
  const sockets = new Set<Socket>();
  const allowed = (request: IncomingMessage): boolean => expected === undefined || request.headers['proxy-authorization'] === expected;
  const visit = (request: IncomingMessage): void => {
    visits.push({ line: `${request.method} ${request.url}`, authorization: request.headers['proxy-authorization'] });
  };

  const server = createServer((request, response) => {
    visit(request);
    if (!allowed(request)) {
      if (options.refusal === 401)
        response.writeHead(401, { 'www-authenticate': 'Basic realm="test"', 'content-type': 'text/html' }).end('<h1>401 Unauthorized</h1>');
      else response.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const target = new URL(request.url ?? '');
    const headers = { ...request.headers };
    delete headers['proxy-authorization'];
    const upstream = httpRequest(
      { host: '127.0.0.1', port: Number(target.port || 80), method: request.method, path: `${target.pathname}${target.search}`, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    visit(request);
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (!allowed(request)) return void client.end(REFUSE_407);
    if (unavailable > 0) {
      unavailable -= 1;
      return void client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    }
    const port = Number((request.url ?? '').split(':').pop());
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => (sockets.delete(upstream), client.destroy()));
    upstream.on('error', () => (client.writable && client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'), upstream.destroy()));
  });
  const listening = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${listening.port}`,
    visits,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return listening.close();
    },
  };
}
