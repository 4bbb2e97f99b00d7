// The local control plane's plain HTTP/1.1 path (http-port.ts; AGENTFORM_OPTIMIZATIONS=off): node's
// http.Server (its parser, keep-alive, pipelining, header size limit and deadlines), with this
// project's rules on top: a cap on open connections, a body limit counted as the body is read,
// `100 Continue` only once the handler reads the body, and answers that close their connection
// once the server is closing. Node's request and answer reach the handler through NodeExchange,
// the port's shape.
import { Server, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { hasNoBody } from './request-body.js';
import { BodyAbandoned, BodyTooLarge, type HttpRequest, type HttpResponse, type RequestHandler, type ServerLimits } from './http-port.js';

/** How long a connection past the cap is given to ask and read its 503 before it is closed anyway. */
const REFUSAL_LINGER_MS = 1_000;

export class NodeHttpServer extends Server {
  /** Answers not yet finished: told to close their connection if the server starts closing. */
  private readonly answering = new Set<ServerResponse>();
  /** Requests waiting on `Expect: 100-continue` until their handler reads the body. */
  private readonly awaitingContinue = new WeakSet<IncomingMessage>();
  /** Connections past the cap: each request on one is answered 503. */
  private readonly overCap = new WeakSet<Socket>();
  private open = 0;

  constructor(
    readonly limits: ServerLimits,
    onRequest: RequestHandler,
  ) {
    super({
      // Node enforces both deadlines only when it sweeps its connections (every 30 s by default):
      // sweep often enough that a deadline is kept within a quarter of the shortest.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(Math.min(limits.headersMs, limits.requestMs) / 4))),
      // (Node requires it: the head is part of the request.)
      headersTimeout: Math.min(limits.headersMs, limits.requestMs),
      requestTimeout: limits.requestMs,
      keepAliveTimeout: limits.keepAliveMs,
    });
    // A client that half-closes after its request still gets the answer (RFC 9112 §9.6: a
    // half-close neither ends a request nor says the answer is unwanted); node's default drops it.
    Object.assign(this, { httpAllowHalfOpen: true });
    this.on('connection', (socket: Socket) => this.count(socket));
    this.on('request', (req: IncomingMessage, res: ServerResponse) => this.dispatch(req, res, onRequest));
    // Handled as any other request ('request' is emitted, so whatever counts requests sees it);
    // the client is told to send the body only when the handler reads it, after the credential.
    this.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      this.awaitingContinue.add(req);
      this.emit('request', req, res);
    });
  }

  /** Stops listening; idle connections close now, busy ones after their answer. */
  override close(callback?: (error?: Error) => void): this {
    for (const res of this.answering) if (!res.headersSent) res.shouldKeepAlive = false;
    return super.close(callback);
  }

  /**
   * The body once it has all arrived: BodyTooLarge past `maxBytes` (declared or sent), without
   * reading on; BodyAbandoned if the connection closes first.
   */
  readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer> {
    const maxBytes = this.limits.maxBodyBytes;
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(new BodyTooLarge());
    if (this.awaitingContinue.delete(req)) res.writeContinue();
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const onData = (chunk: Buffer): void => {
        size += chunk.length;
        if (size <= maxBytes) return void chunks.push(chunk);
        req.off('data', onData);
        reject(new BodyTooLarge());
      };
      req.on('data', onData);
      req.once('end', () => resolve(Buffer.concat(chunks, size)));
      req.once('error', () => reject(new BodyAbandoned()));
      req.once('close', () => reject(new BodyAbandoned()));
    });
  }

  private count(socket: Socket): void {
    if (this.open >= (this.limits.maxConnections ?? Number.POSITIVE_INFINITY)) {
      this.overCap.add(socket);
      const linger = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
      linger.unref();
      socket.once('close', () => clearTimeout(linger));
      return;
    }
    this.open += 1;
    socket.once('close', () => (this.open -= 1));
  }

  private dispatch(req: IncomingMessage, res: ServerResponse, onRequest: RequestHandler): void {
    if (this.overCap.has(req.socket)) return refuseOverCap(res, this.limits.maxConnections ?? 0);
    // Node reads a body in any other coding to the connection's end; RFC 9112 §6.1 says refuse it.
    const coding = req.headers['transfer-encoding'];
    if (coding !== undefined && coding.toLowerCase() !== 'chunked') return refuseCoding(res, coding);
    // A request that arrives while the server is closing is its connection's last.
    if (!this.listening) res.shouldKeepAlive = false;
    this.answering.add(res);
    res.once('close', () => this.answering.delete(res));
    const exchange = new NodeExchange(this, req, res);
    onRequest(exchange, exchange);
  }
}

/** Node's request and answer in the port's shape. */
class NodeExchange implements HttpRequest, HttpResponse {
  private bodyRead: Promise<Buffer> | undefined;

  constructor(
    private readonly server: NodeHttpServer,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {}

  get method(): string {
    return this.req.method ?? 'GET';
  }
  get url(): string {
    return this.req.url ?? '/';
  }
  get headers(): IncomingMessage['headers'] {
    return this.req.headers;
  }
  get headersSent(): boolean {
    return this.res.headersSent;
  }
  get destroyed(): boolean {
    return this.res.destroyed || this.req.socket.destroyed;
  }

  body(): Promise<Buffer> {
    this.bodyRead ??= this.server.readBody(this.req, this.res);
    return this.bodyRead;
  }
  writeHead(status: number, headers?: Record<string, string | number>): void {
    // An answer before the body has arrived closes the connection (the port's rule), rather than have
    // node read on through a body nobody asked for. (A request without a body is not complete yet
    // while its 'request' event runs.)
    if (!this.req.complete && !hasNoBody(this.req.headers)) this.res.shouldKeepAlive = false;
    this.res.writeHead(status, headers);
  }
  write(text: string): void {
    this.res.write(text);
  }
  end(text?: string): void {
    this.res.end(text);
  }
  destroy(): void {
    this.res.destroy();
  }
}

/**
 * Answers a request on a connection past the cap with 503 and `retry-after: 1` (the API's "busy,
 * try later", which clients retry), then closes it. Refused rather than kept waiting: a waiting
 * connection holds a descriptor and buffers too, so waiting without bound is the exhaustion the
 * cap is there to stop, and a prompt 503 tells the client when to come back.
 */
function refuseOverCap(res: ServerResponse, cap: number): void {
  const text = JSON.stringify({ error: { code: 'unavailable', message: `the server has its limit of ${cap} connections open; retry` } });
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'retry-after': '1', connection: 'close' });
  res.end(text);
}

function refuseCoding(res: ServerResponse, coding: string): void {
  const text = `the transfer coding ${JSON.stringify(coding.slice(0, 80))} is not supported (chunked is)\n`;
  res.writeHead(501, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), connection: 'close' });
  res.end(text);
}
