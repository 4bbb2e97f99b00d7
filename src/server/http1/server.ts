// The local control plane's hand-written HTTP/1.1 server, its fast path (../http-port.ts): node's
// `http.Server` for listening and its events, with each connection's HTTP handled by connection.ts
// instead of node's parser and its IncomingMessage, ServerResponse and stream machinery, which cost
// more CPU a request than the control plane's own work on a small one. The plain path is node's
// own server (../http-server.ts).
//
// It stays an `http.Server` so that whatever observes one sees the same events: 'connection' for
// every socket, 'request' (with the port's request and answer) for every request; the peer
// benchmark's request counter (../shared/bench/peer-deck/count-hook.mjs) among them.
import { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpRequest, HttpResponse, RequestHandler, ServerLimits } from '../http-port.js';
import { ServerConnection, type ConnectionHost } from './connection.js';

/** How long a refused connection is given to read its 503 before it is closed anyway. */
const REFUSAL_LINGER_MS = 1_000;

export class Http1Server extends HttpServer implements ConnectionHost {
  private readonly clients = new Set<ServerConnection>();
  private sweep: NodeJS.Timeout | undefined;
  closing = false;

  constructor(
    readonly limits: ServerLimits,
    onRequest: RequestHandler,
  ) {
    super();
    // Node's own handling of each connection (its parser) is replaced, not added to.
    this.removeAllListeners('connection');
    this.on('connection', (socket: Socket) => this.accept(socket));
    this.on('request', onRequest);
    this.on('listening', () => {
      this.closing = false;
      this.startSweep();
    });
  }

  dispatch(request: HttpRequest, response: HttpResponse): void {
    this.emit('request', request, response);
  }

  forget(connection: ServerConnection): void {
    this.clients.delete(connection);
    if (this.closing && this.clients.size === 0) this.stopSweep();
  }

  /**
   * Stops listening; idle connections close now, the others once their answer has gone out (the
   * sweep goes on until the last one has: a request still arriving keeps its deadlines).
   */
  override close(callback?: (error?: Error) => void): this {
    this.closing = true;
    if (this.clients.size === 0) this.stopSweep();
    // http.Server's close closes idle connections through closeIdleConnections (below).
    return super.close(callback);
  }

  override closeIdleConnections(): void {
    for (const connection of this.clients) if (connection.idle) connection.destroy();
  }

  override closeAllConnections(): void {
    for (const connection of this.clients) connection.destroy();
  }

  private accept(socket: Socket): void {
    if (this.closing) {
      socket.destroy();
      return;
    }
    if (this.limits.maxConnections !== undefined && this.clients.size >= this.limits.maxConnections) {
      refuseOverCap(socket, this.limits.maxConnections);
      return;
    }
    this.clients.add(new ServerConnection(socket, this));
  }

  /**
   * One timer for every connection's deadlines, as node's server keeps them (its
   * connectionsCheckingInterval): a deadline is kept within a quarter of the shortest limit (at
   * most a second late), and no request pays for a timer of its own.
   */
  private startSweep(): void {
    if (this.sweep) return;
    const { headersMs, requestMs, keepAliveMs } = this.limits;
    const every = Math.max(50, Math.min(1_000, Math.floor(Math.min(headersMs, requestMs, keepAliveMs) / 4)));
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const connection of this.clients) connection.check(now);
    }, every);
    this.sweep.unref();
  }

  private stopSweep(): void {
    if (this.sweep) clearInterval(this.sweep);
    this.sweep = undefined;
  }
}

/**
 * Answers a connection past the cap with 503 and `retry-after: 1` (the API's "busy, try later",
 * which clients retry), then closes it. Refused rather than kept waiting: a waiting connection
 * holds a descriptor and buffers too, so waiting without bound is the exhaustion the cap is there
 * to stop, and a prompt 503 tells the client when to come back. What the client sends meanwhile is
 * read and dropped: closing with unread bytes would reset the connection, and the client might
 * lose the answer.
 */
function refuseOverCap(socket: Socket, cap: number): void {
  const text = JSON.stringify({ error: { code: 'unavailable', message: `the server has its limit of ${cap} connections open; retry` } });
  socket.on('error', () => undefined);
  socket.on('end', () => socket.destroy());
  socket.resume();
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${text}`,
  );
  const linger = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
  linger.unref();
  socket.on('close', () => clearTimeout(linger));
}
