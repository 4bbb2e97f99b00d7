// One client connection of the local control plane: requests parsed as they arrive (MessageParser,
// requestHeadOf), each handed to the server as one exchange (request and answer), answered in
// order, the connection kept for the next one unless either side closes it.
//
// Rules, as node:http's server keeps them: one request is answered at a time, and bytes of the
// next one (pipelining) wait until the answer is written; an answer given before its request's
// body has arrived (401, 413, 415) closes the connection after it, since the rest of that body
// would otherwise be read as a request; a request the parser refuses is answered with its status
// and the connection closes; the deadlines (a head within headersMs of its first byte, the whole
// request within requestMs, an idle connection closed after keepAliveMs) are checked by the
// server's sweep (server.ts).
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { MessageParser } from '../../api/http1/message-parser.js';
import { HttpRefusal, refuseRequest, requestHeadOf, type RequestHead, type RequestHeaders } from './request-head.js';

export interface ConnectionLimits {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
  maxBodyBytes: number;
}

/** The request's body is larger than the server accepts. */
export class BodyTooLarge extends Error {}

/** The connection closed, or the request was refused, before its body arrived. */
export class BodyAbandoned extends Error {}

export interface HttpRequest {
  readonly method: string;
  /** The request-target as sent. */
  readonly url: string;
  readonly headers: RequestHeaders;
  /** The whole request, its body included, has arrived. */
  readonly complete: boolean;
  /**
   * The body once it has all arrived. Rejects with BodyTooLarge past maxBodyBytes (declared or
   * sent), BodyAbandoned if it never will. A client waiting on `Expect: 100-continue` is told to
   * send it only now, so one that is refused before (401) never sends it.
   */
  body(): Promise<Buffer>;
}

export interface HttpResponse {
  readonly headersSent: boolean;
  /** The answer can no longer be delivered (the connection is gone, or the request was refused meanwhile). */
  readonly destroyed: boolean;
  writeHead(status: number, headers?: Record<string, string | number>): void;
  write(text: string): void;
  end(text?: string): void;
  /** Closes the connection without an answer. */
  destroy(): void;
}

/** What a connection needs from its server. */
export interface ConnectionHost {
  readonly limits: ConnectionLimits;
  /** The server is closing: no connection is kept after its answer. */
  readonly closing: boolean;
  dispatch(request: HttpRequest, response: HttpResponse): void;
  forget(connection: ServerConnection): void;
}

/** Bytes of later requests held while one is answered before reading pauses. */
const MAX_HELD_BYTES = 64 * 1024;
// A field value may hold neither CR nor LF (nor other controls): an answer's head is built as text.
const UNSAFE_FIELD_VALUE = /[^\t\x20-\x7e]/;

let dateSecond = -1;
let dateText = '';
/** The Date field, made once a second. */
function httpDate(now: number): string {
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

export class ServerConnection {
  private readonly parser: MessageParser;
  private exchange: Exchange | undefined;
  /** An exchange whose head was parsed during the current feed, handed over once the feed is done. */
  private arrived: Exchange | undefined;
  /** Bytes after the current request (the next ones), held until it is answered. */
  private held: Buffer | undefined;
  private paused = false;
  /** When the current request's first byte arrived, or (none under way) when the connection became idle. */
  private since = Date.now();
  /** Reading a request's head (its first byte has arrived, not yet its end). */
  private inHead = false;
  private answered = 0;
  private clientEnded = false;
  private closing = false;

  constructor(
    readonly socket: Socket,
    private readonly host: ConnectionHost,
  ) {
    this.parser = new MessageParser(
      {
        head: (text) => this.onHead(text),
        body: (chunk) => this.exchange!.receive(chunk),
        end: () => this.exchange!.completed(),
      },
      refuseRequest,
    );
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onEnd());
    // A reset or a write to a closed peer: the connection is gone either way ('close' follows).
    socket.on('error', () => undefined);
    socket.on('close', () => this.onClose());
  }

  /** What an answer tells the client of the idle timeout (whole seconds, as node:http does). */
  get keepAliveSeconds(): number {
    return Math.floor(this.host.limits.keepAliveMs / 1000);
  }

  /** The server is closing: this connection ends after the answer under way. */
  get ending(): boolean {
    return this.host.closing || this.clientEnded;
  }

  /** No request under way: nothing would be lost by closing. */
  get idle(): boolean {
    return this.exchange === undefined && this.parser.idle && this.held === undefined;
  }

  /** Applies the deadlines (called by the server's sweep). */
  check(now: number): void {
    if (this.closing) return;
    const { headersMs, requestMs, keepAliveMs } = this.host.limits;
    const elapsed = now - this.since;
    if (this.idle) {
      // A connection that never sent a request gets the head's deadline; one that did, keep-alive's.
      if (elapsed > (this.answered > 0 ? keepAliveMs : headersMs)) this.destroy();
    } else if (this.inHead) {
      if (elapsed > headersMs) this.refuse(new HttpRefusal(408, `the request's head did not arrive within ${headersMs} ms`));
    } else if (this.exchange && !this.exchange.complete && elapsed > requestMs) {
      this.refuse(new HttpRefusal(408, `the request did not arrive within ${requestMs} ms`));
    }
  }

  destroy(): void {
    this.closing = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.closing) return;
    if (this.parser.done) this.hold(chunk);
    else this.consume(chunk);
  }

  private consume(chunk: Buffer): void {
    if (this.parser.idle) {
      this.since = Date.now();
      this.inHead = true;
    }
    let rest: Buffer | undefined;
    try {
      rest = this.parser.feed(chunk);
    } catch (error) {
      this.refuse(error);
      return;
    }
    if (rest) this.hold(rest);
    const arrived = this.arrived;
    if (arrived) {
      this.arrived = undefined;
      this.host.dispatch(arrived, arrived);
    }
  }

  private onHead(text: string): RequestHead['framing'] {
    const head = requestHeadOf(text);
    this.inHead = false;
    this.exchange = this.arrived = new Exchange(this, head, this.host.limits.maxBodyBytes);
    return head.framing;
  }

  private hold(bytes: Buffer): void {
    this.held = this.held ? Buffer.concat([this.held, bytes]) : bytes;
    if (this.held.length > MAX_HELD_BYTES && !this.paused) {
      this.paused = true;
      this.socket.pause();
    }
  }

  private onEnd(): void {
    this.clientEnded = true;
    if (this.closing) return;
    if (this.idle) return this.destroy();
    // The client stopped sending: a request cut short is refused; one complete is answered, then the connection closes.
    if (!this.parser.done && !this.parser.idle) this.refuse(refuseRequest('the connection closed in the middle of the request'));
  }

  private onClose(): void {
    this.closing = true;
    this.exchange?.abandon();
    this.host.forget(this);
  }

  /** Writes bytes of the current answer (false: the connection is gone). */
  send(text: string): boolean {
    if (this.socket.destroyed) return false;
    this.socket.write(text);
    return true;
  }

  /** The answer to `exchange` is written: the next request, or the end of the connection. */
  finished(exchange: Exchange, keepOpen: boolean): void {
    if (exchange !== this.exchange) return;
    this.exchange = undefined;
    this.answered += 1;
    if (!keepOpen || this.clientEnded || this.host.closing || this.closing) {
      this.closeSoon();
      return;
    }
    this.parser.reset();
    this.since = Date.now();
    const held = this.held;
    this.held = undefined;
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
    if (held) this.consume(held);
  }

  /** Answers a request the parser refused (or one too slow), then closes. */
  private refuse(error: unknown): void {
    const refusal = error instanceof HttpRefusal ? error : new HttpRefusal(400, error instanceof Error ? error.message : String(error));
    const exchange = this.exchange;
    this.exchange = undefined;
    this.arrived = undefined;
    // An answer already under way is not followed by a second: the connection just ends.
    if (!exchange?.headersSent) {
      const text = `the request is not valid HTTP/1.1: ${refusal.message}\n`;
      this.send(
        `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    }
    exchange?.abandon();
    this.closeSoon();
  }

  /** Ends the connection once what was written has gone out. */
  private closeSoon(): void {
    this.closing = true;
    const socket = this.socket;
    if (socket.destroyed) return;
    socket.end();
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  }
}

/** One request and its answer. */
class Exchange implements HttpRequest, HttpResponse {
  readonly method: string;
  readonly url: string;
  readonly headers: RequestHeaders;
  complete = false;
  headersSent = false;
  private chunks: Buffer[] = [];
  private size = 0;
  private tooLarge: boolean;
  private abandoned = false;
  private waiting: { resolve: (body: Buffer) => void; reject: (error: Error) => void } | undefined;
  private continueSent = false;
  private pendingHead = '';
  private headOnly: boolean;
  private keepOpen: boolean;
  private ended = false;

  constructor(
    private readonly connection: ServerConnection,
    private readonly head: RequestHead,
    private readonly maxBodyBytes: number,
  ) {
    this.method = head.method;
    this.url = head.target;
    this.headers = head.headers;
    this.tooLarge = head.framing.kind === 'length' && head.framing.length > maxBodyBytes;
    this.headOnly = head.method === 'HEAD';
    this.keepOpen = head.keepAlive;
  }

  get destroyed(): boolean {
    return this.abandoned || this.connection.socket.destroyed;
  }

  receive(chunk: Buffer): void {
    if (this.tooLarge) return;
    this.size += chunk.length;
    if (this.size > this.maxBodyBytes) {
      this.tooLarge = true;
      this.chunks = [];
      this.settle();
      return;
    }
    // A copy: the parser's pieces are views valid only during the call.
    this.chunks.push(Buffer.from(chunk));
  }

  completed(): void {
    this.complete = true;
    this.settle();
  }

  abandon(): void {
    this.abandoned = true;
    this.settle();
  }

  body(): Promise<Buffer> {
    if (this.tooLarge) return Promise.reject(new BodyTooLarge());
    if (this.complete) return Promise.resolve(this.bodyBytes());
    if (this.abandoned) return Promise.reject(new BodyAbandoned());
    if (this.head.expectsContinue && !this.continueSent && this.size === 0) {
      this.continueSent = true;
      this.connection.send('HTTP/1.1 100 Continue\r\n\r\n');
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  private bodyBytes(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }

  private settle(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    if (this.tooLarge) waiting.reject(new BodyTooLarge());
    else if (this.complete) waiting.resolve(this.bodyBytes());
    else if (this.abandoned) waiting.reject(new BodyAbandoned());
  }

  writeHead(status: number, headers: Record<string, string | number> = {}): void {
    if (this.headersSent) throw new Error('the answer has already begun');
    this.headersSent = true;
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
    for (const name of Object.keys(headers)) {
      const value = String(headers[name]);
      if (UNSAFE_FIELD_VALUE.test(value)) throw new Error(`the answer's ${name} field holds a character a header may not`);
      if (name.toLowerCase() === 'connection' && value.toLowerCase() === 'close') this.keepOpen = false;
      else head += `${name}: ${value}\r\n`;
    }
    // Without its whole request read, the connection cannot find where the next one starts; and
    // a closing server, or a client that has stopped sending, will not have a next one.
    if (!this.complete || this.connection.ending) this.keepOpen = false;
    head += `Date: ${httpDate(Date.now())}\r\n`;
    head += this.keepOpen ? `Connection: keep-alive\r\nKeep-Alive: timeout=${this.connection.keepAliveSeconds}\r\n\r\n` : 'Connection: close\r\n\r\n';
    this.pendingHead = head;
  }

  write(text: string): void {
    if (!this.headersSent) this.writeHead(200);
    if (this.ended || this.destroyed) return;
    const body = this.headOnly ? '' : text;
    if (this.pendingHead) {
      this.connection.send(this.pendingHead + body);
      this.pendingHead = '';
    } else if (body !== '') this.connection.send(body);
  }

  end(text = ''): void {
    if (this.ended) return;
    this.write(text);
    this.ended = true;
    if (!this.destroyed) this.connection.finished(this, this.keepOpen);
  }

  destroy(): void {
    this.abandoned = true;
    this.connection.destroy();
  }
}
