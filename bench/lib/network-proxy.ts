// A network with a round-trip time between the CLI and a plain-HTTP server on this machine, over TLS
// when given a certificate: what a CLI meets against a remote Control API. latency-proxy.ts and the
// server's --latency-ms delay each HTTP request; this delays bytes, so opening a connection costs
// what it costs on a real network: a new connection's first bytes wait one round trip (the TCP
// handshake the kernel did instantly on loopback), and the TLS handshake, terminated behind the
// delay, pays its own round trip. Each chunk, either way, arrives half a round trip after it was
// sent; chunks keep their order (timers of one duration fire in the order they were set).
import { connect, createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';

export interface NetworkProxy {
  /** `https://127.0.0.1:<port>` with a certificate, else `http://...`. */
  url: string;
  /** Connections the CLI opened through it so far. */
  connections(): number;
  close(): Promise<void>;
}

export interface NetworkOptions {
  rttMs: number;
  /** PEM key and certificate (for 127.0.0.1) to terminate TLS with; plain TCP without. */
  tls?: { key: Buffer; cert: Buffer };
}

/**
 * Copies `from` to `to`, each chunk `delayMs` later; an end or a failure follows the same way. A
 * close ends `to` (what was written to it still goes out); only a failure destroys it.
 */
function forwardDelayed(from: Socket, to: Socket, delayMs: number): void {
  const later = (action: () => void) => setTimeout(() => !to.destroyed && action(), delayMs);
  from.on('data', (chunk: Buffer) => later(() => to.write(chunk)));
  from.on('end', () => later(() => to.end()));
  from.on('error', () => later(() => to.destroy()));
  from.on('close', () => later(() => to.end()));
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

export async function startNetworkProxy(upstream: string, options: NetworkOptions): Promise<NetworkProxy> {
  const target = new URL(upstream);
  const toUpstream = () => connect({ host: target.hostname, port: Number(target.port) });
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    return socket;
  };
  // Behind the delay: TLS terminated here (the handshake's bytes cross the delayed link), then the server.
  let innerPort = Number(target.port);
  if (options.tls) {
    const terminator = createTlsServer({ key: options.tls.key, cert: options.tls.cert }, (secure: TLSSocket) => {
      const plain = track(toUpstream());
      track(secure);
      secure.pipe(plain);
      plain.pipe(secure);
      plain.on('close', () => secure.destroy());
      secure.on('close', () => plain.destroy());
    });
    servers.push(terminator);
    innerPort = await listen(terminator);
  }
  let opened = 0;
  const half = options.rttMs / 2;
  // Half-open allowed: a client that ends its side still gets the answers on their way to it.
  const edge = createTcpServer({ pauseOnConnect: true, allowHalfOpen: true }, (client) => {
    opened += 1;
    track(client);
    const inner = track(connect({ host: '127.0.0.1', port: innerPort, allowHalfOpen: true }));
    forwardDelayed(client, inner, half);
    forwardDelayed(inner, client, half);
    // The TCP handshake's round trip: nothing the client sent goes on before it.
    setTimeout(() => client.resume(), options.rttMs);
  });
  servers.push(edge);
  const port = await listen(edge);
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    connections: () => opened,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}
