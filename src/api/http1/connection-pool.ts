// Keep-alive HTTP/1.1 connections to one origin: at most `maxSockets` open, one request at a time
// on each (no pipelining), the most recently used idle one first, requests beyond the limit queued
// in order. What node's http.Agent did for the transport, without its per-request machinery
// (response-parser.ts says why).
import { StringDecoder } from 'node:string_decoder';
import { MAX_TIMER_MS } from '../../util/clock.js';
import { MalformedResponseError, ResponseParser, type ResponseHeaders } from './response-parser.js';

export interface PooledRequest {
  /** The request line and header fields, ending with the empty line; ASCII only (the caller checks). */
  head: string;
  body?: string;
  /** Covers the whole exchange: waiting for a connection, connecting, sending, the whole answer. */
  timeoutMs: number;
  /** The largest body accepted: a longer one (or a Content-Length above it) fails the request with RESPONSE_TOO_LARGE. */
  maxBodyBytes?: number;
}

export interface PooledAnswer {
  status: number;
  headers: ResponseHeaders;
  /** The body decoded as UTF-8 as it arrived (invalid bytes become U+FFFD). */
  text: string;
}

/** What the pool needs of a connection: a net.Socket, a TLS one, or a proxy tunnel (tunnel.ts). */
export interface PoolSocket {
  setNoDelay(noDelay?: boolean): unknown;
  setKeepAlive(enable?: boolean, initialDelay?: number): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  ref(): unknown;
  unref(): unknown;
  write(data: string): unknown;
  destroy(): unknown;
}

/** A failure carrying a code the transport maps to what the user should check. */
export function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

interface Exchange {
  request: PooledRequest;
  resolve(answer: PooledAnswer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  connection: Connection | undefined;
  status: number;
  headers: ResponseHeaders;
  decoder: StringDecoder | undefined;
  text: string;
  /** Body bytes received so far (framing removed). */
  bodyBytes: number;
  settled: boolean;
}

interface Connection {
  socket: PoolSocket;
  parser: ResponseParser;
  exchange: Exchange | undefined;
  /** How long it may sit idle: the server's Keep-Alive timeout hint, less a second. */
  idleMs: number | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  /** Set when an answer has just completed (whether the connection may be reused), until the read that completed it is done. */
  answered: boolean | undefined;
  dead: boolean;
}

/** Idle connections are closed after this long when the server gives no Keep-Alive hint. */
const DEFAULT_IDLE_MS = 4_000;
/**
 * The longest a connection is kept idle, whatever the server's hint: a timer beyond setTimeout's
 * limit would fire at once with a warning, and a CLI run has no use for connections idle longer.
 */
export const MAX_IDLE_MS = 5 * 60_000;

export class ConnectionPool {
  private readonly idle: Connection[] = [];
  private readonly waiting: Exchange[] = [];
  private readonly connections = new Set<Connection>();
  private closing = false;

  constructor(
    private readonly connect: () => PoolSocket,
    private readonly maxSockets: number,
  ) {}

  request(request: PooledRequest): Promise<PooledAnswer> {
    return new Promise<PooledAnswer>((resolve, reject) => {
      const exchange: Exchange = {
        request,
        resolve,
        reject,
        timer: undefined as unknown as NodeJS.Timeout,
        connection: undefined,
        status: 0,
        headers: {},
        decoder: undefined,
        text: '',
        bodyBytes: 0,
        settled: false,
      };
      // setTimeout fires at once beyond its 32-bit limit (~24.8 days).
      exchange.timer = setTimeout(
        () => this.fail(exchange, codedError('CLIENT_TIMEOUT', `no answer within ${request.timeoutMs} ms`)),
        Math.min(request.timeoutMs, MAX_TIMER_MS),
      );
      if (this.closing) return this.fail(exchange, codedError('CLIENT_CLOSED', 'the client was closed'));
      const idle = this.idle.pop();
      if (idle) this.assign(idle, exchange);
      else if (this.connections.size < this.maxSockets) this.openFor(exchange);
      else this.waiting.push(exchange);
    });
  }

  /**
   * Opens connections until `count` are open (at most maxSockets), kept idle for requests about to
   * be sent: a burst of requests then finds its connections made (their handshakes done) instead
   * of opening them all at once, when a server accepts them one at a time. Returns how many it opened.
   */
  preconnect(count: number): number {
    let opened = 0;
    while (!this.closing && this.connections.size < Math.min(count, this.maxSockets)) {
      let connection: Connection;
      try {
        connection = this.open();
      } catch {
        // Making it failed (a throw, not an 'error' event): the request that needs it will say why.
        break;
      }
      // Below the idle ones already made: those are handed out first, being known to work.
      this.idle.unshift(connection);
      this.keepIdle(connection);
      opened += 1;
    }
    return opened;
  }

  /** No new requests, and those still waiting for a connection fail; idle connections close now, busy ones once their answer is in. */
  close(): void {
    this.closing = true;
    for (const exchange of this.waiting.splice(0)) this.fail(exchange, codedError('CLIENT_CLOSED', 'the client was closed'));
    for (const connection of this.idle.splice(0)) this.discard(connection);
  }

  /** Fails every request in flight or waiting with `error` and closes every connection. */
  destroy(error: Error): void {
    this.closing = true;
    for (const exchange of this.waiting.splice(0)) this.fail(exchange, error);
    for (const connection of [...this.connections]) {
      if (connection.exchange) this.fail(connection.exchange, error);
      this.discard(connection);
    }
  }

  private open(): Connection {
    const socket = this.connect();
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    const connection: Connection = {
      socket,
      parser: undefined as unknown as ResponseParser,
      exchange: undefined,
      idleMs: undefined,
      idleTimer: undefined,
      answered: undefined,
      dead: false,
    };
    connection.parser = new ResponseParser({
      head: (head) => {
        const exchange = connection.exchange!;
        exchange.status = head.status;
        exchange.headers = head.headers;
        connection.idleMs = idleMsOf(head.headers);
        const length = head.headers['content-length'];
        // A declared length beyond the limit is refused before any of the body arrives.
        if (length !== undefined && Number(Array.isArray(length) ? length[0] : length) > (exchange.request.maxBodyBytes ?? Infinity))
          throw tooLarge(exchange.request);
      },
      body: (chunk) => {
        const exchange = connection.exchange!;
        exchange.bodyBytes += chunk.length;
        // Thrown from inside feed(): the read's handler fails the request and ends the connection.
        if (exchange.bodyBytes > (exchange.request.maxBodyBytes ?? Infinity)) throw tooLarge(exchange.request);
        exchange.decoder ??= new StringDecoder('utf8');
        exchange.text += exchange.decoder.write(chunk);
      },
      end: (reusable) => this.answer(connection, reusable),
    });
    socket.on('data', (chunk: Buffer) => {
      if (connection.dead) return;
      try {
        if (!connection.exchange) throw new MalformedResponseError('bytes arrived while no request was waiting');
        connection.parser.feed(chunk);
      } catch (error) {
        if (connection.exchange) this.fail(connection.exchange, error as Error);
        return this.discard(connection);
      }
      // Released only once the whole read is parsed: bytes after an answer (which feed() refuses)
      // must end the connection, not become the next request's answer.
      const reusable = connection.answered;
      connection.answered = undefined;
      if (reusable !== undefined) this.release(connection, reusable);
    });
    socket.on('end', () => {
      if (!connection.dead && connection.exchange) {
        try {
          connection.parser.finish();
        } catch (error) {
          this.fail(connection.exchange, codedError('ECONNRESET', (error as Error).message));
        }
      }
      this.discard(connection);
    });
    socket.on('error', (error) => {
      if (connection.exchange) this.fail(connection.exchange, error);
      this.discard(connection);
    });
    socket.on('close', () => {
      if (connection.exchange) this.fail(connection.exchange, codedError('ECONNRESET', 'the connection closed before the answer was complete'));
      this.discard(connection);
    });
    this.connections.add(connection);
    return connection;
  }

  private assign(connection: Connection, exchange: Exchange): void {
    clearTimeout(connection.idleTimer);
    connection.idleTimer = undefined;
    connection.exchange = exchange;
    exchange.connection = connection;
    if (!connection.parser.idle) throw new Error('a connection was handed out in the middle of an answer');
    connection.parser.reset();
    connection.socket.ref();
    const { head, body } = exchange.request;
    connection.socket.write(body === undefined ? head : head + body);
  }

  private answer(connection: Connection, reusable: boolean): void {
    const exchange = connection.exchange!;
    connection.exchange = undefined;
    exchange.connection = undefined;
    if (exchange.decoder) exchange.text += exchange.decoder.end();
    this.settle(exchange);
    exchange.resolve({ status: exchange.status, headers: exchange.headers, text: exchange.text });
    connection.answered = reusable;
  }

  private release(connection: Connection, reusable: boolean): void {
    if (!reusable || this.closing || connection.idleMs === 0) return this.discard(connection);
    // Handed on at once when a request waits; else kept, not holding the process open.
    const next = this.waiting.shift();
    if (next) return this.assign(connection, next);
    this.idle.push(connection);
    this.keepIdle(connection);
  }

  /** An idle connection does not hold the process open, and closes after its idle time. */
  private keepIdle(connection: Connection): void {
    connection.socket.unref();
    connection.idleTimer = setTimeout(() => this.discard(connection), connection.idleMs ?? DEFAULT_IDLE_MS).unref();
  }

  private fail(exchange: Exchange, error: Error): void {
    if (exchange.settled) return;
    this.settle(exchange);
    const waitingAt = this.waiting.indexOf(exchange);
    if (waitingAt >= 0) this.waiting.splice(waitingAt, 1);
    // Its connection is in an unknown state (a half-read answer, an unsent body): it goes too.
    const connection = exchange.connection;
    if (connection) {
      connection.exchange = undefined;
      exchange.connection = undefined;
      this.discard(connection);
    }
    exchange.reject(error);
  }

  private settle(exchange: Exchange): void {
    exchange.settled = true;
    clearTimeout(exchange.timer);
  }

  /** Closes a connection for good, and lets a waiting request have a new one in its place. */
  private discard(connection: Connection): void {
    if (connection.dead) return;
    connection.dead = true;
    clearTimeout(connection.idleTimer);
    this.connections.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    connection.socket.destroy();
    if (connection.exchange) this.fail(connection.exchange, codedError('ECONNRESET', 'the connection closed before the answer was complete'));
    const next = this.closing ? undefined : this.waiting.shift();
    if (next) this.openFor(next);
  }

  /** A new connection carrying `exchange`; failing to make one (a throw, not an 'error' event) fails only it. */
  private openFor(exchange: Exchange): void {
    let connection: Connection;
    try {
      connection = this.open();
    } catch (error) {
      return this.fail(exchange, error as Error);
    }
    this.assign(connection, exchange);
  }
}

function tooLarge(request: PooledRequest): Error {
  return codedError('RESPONSE_TOO_LARGE', `the answer is longer than ${request.maxBodyBytes} bytes`);
}

/** The server's `Keep-Alive: timeout=N` less a second (node's agent does the same), if given; at most MAX_IDLE_MS. */
export function idleMsOf(headers: ResponseHeaders): number | undefined {
  const hint = headers['keep-alive'];
  const seconds = typeof hint === 'string' ? /(?:^|[,\s])timeout=(\d+)/i.exec(hint)?.[1] : undefined;
  return seconds === undefined ? undefined : Math.min(MAX_IDLE_MS, Math.max(0, Number(seconds) * 1000 - 1000));
}
