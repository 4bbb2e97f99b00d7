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
// server's sweep (server.ts). Reading stops while the client does not read its answers (as node's
// server does: otherwise answers to pipelined requests pile up in memory), while more than
// MAX_HELD_BYTES of later requests wait, and while a body its handler has not asked for yet is
// arriving (so a request refused on its credential is not read on).
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { HTTP_TOKEN, MessageParser } from '../../api/http1/message-parser.js';
import { BodyAbandoned, BodyTooLarge, type HttpRequest, type HttpResponse, type RequestHeaders, type ServerLimits } from '../http-port.js';
import { HttpRefusal, refuseRequest, requestHeadOf, type RequestHead } from './request-head.js';

/** The limits one connection keeps (the cap on connections is the server's). */
export type ConnectionLimits = Omit<ServerLimits, 'maxConnections'>;

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

/** Why reading is paused (bits); it resumes when no reason is left. */
const HELD_BYTES = 1;
const DRAINING = 2;
const BODY_NOT_ASKED = 4;
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
  private paused = 0;
  /**
   * When the current request's first byte arrived; with none under way, when the connection became
   * idle; once closing, when it began to.
   */
  private since = Date.now();
  /** When the sweep last saw answers waiting to go out make no progress (the client not reading them). */
  private flushingSince: number | undefined;
  /** Bytes of answers waiting to go out at the last sweep. */
  private unsent = 0;
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

  /** No request follows the one being answered: the server is closing, or the client stopped sending and nothing of it is held. */
  get ending(): boolean {
    return this.host.closing || (this.clientEnded && this.held === undefined);
  }

  /** No request under way and every answer gone out: nothing would be lost by closing. */
  get idle(): boolean {
    return this.exchange === undefined && this.parser.idle && this.held === undefined && this.socket.writableLength === 0;
  }

  /** Applies the deadlines (called by the server's sweep). */
  check(now: number): void {
    const { headersMs, requestMs, keepAliveMs } = this.host.limits;
    // Answers waiting to go out: the deadline counts from the last time the client read any.
    const unsent = this.socket.writableLength;
    // Answers gone out since the last sweep: a connection with nothing else under way is idle from now.
    if (unsent === 0 && this.unsent > 0 && this.exchange === undefined && !this.inHead) this.since = now;
    if (unsent === 0 || unsent < this.unsent) this.flushingSince = unsent === 0 ? undefined : now;
    this.unsent = unsent;
    if (this.closing) {
      // Its last answer is on its way out; a client that stops reading it does not hold the socket.
      if (now - (this.flushingSince ?? this.since) > requestMs) this.socket.destroy();
      return;
    }
    if (this.exchange === undefined && unsent > 0) {
      this.flushingSince ??= now;
      if (now - this.flushingSince > requestMs) this.destroy();
      return;
    }
    // A closing server keeps no idle connection, nor one that has sent part of a head only.
    if (this.host.closing && (this.idle || (this.inHead && this.exchange === undefined))) return this.destroy();
    const elapsed = now - this.since;
    if (this.idle) {
      // A connection that never sent a request gets the head's deadline; one that did, keep-alive's.
      if (elapsed > (this.answered > 0 ? keepAliveMs : headersMs)) this.destroy();
    } else if (this.inHead) {
      if (elapsed > headersMs) this.refuse(new HttpRefusal(408, `the request's head did not arrive within ${headersMs} ms`));
    } else if (this.exchange && !this.exchange.complete && (this.paused & BODY_NOT_ASKED) === 0 && elapsed > requestMs) {
      // (While its handler has not asked for the body, the server is not reading it: not the client's time.)
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

  private consume(bytes: Buffer): void {
    let chunk = bytes;
    if (this.parser.idle) {
      // Line ends before a request line are skipped (RFC 9112 §2.2: a client may send one after a
      // body); they do not start a request, nor its deadline.
      let start = 0;
      while (start < chunk.length && (chunk[start] === 0x0d || chunk[start] === 0x0a)) start++;
      if (start === chunk.length) return;
      chunk = chunk.subarray(start);
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
    // A body is arriving that its handler has not asked for (it may refuse the request first).
    if (this.exchange && !this.exchange.complete && !this.exchange.bodyAsked && !this.closing) this.pause(BODY_NOT_ASKED);
  }

  private onHead(text: string): RequestHead['framing'] {
    const head = requestHeadOf(text);
    this.inHead = false;
    this.exchange = this.arrived = new Exchange(this, head, this.host.limits.maxBodyBytes);
    return head.framing;
  }

  private hold(bytes: Buffer): void {
    this.held = this.held ? Buffer.concat([this.held, bytes]) : bytes;
    if (this.held.length > MAX_HELD_BYTES) this.pause(HELD_BYTES);
  }

  /** The handler of the current request asked for its body: reading goes on, and the request's deadline restarts. */
  bodyAsked(): void {
    if ((this.paused & BODY_NOT_ASKED) === 0) return;
    this.since = Date.now();
    this.resume(BODY_NOT_ASKED);
  }

  private pause(reason: number): void {
    if (this.paused === 0) this.socket.pause();
    this.paused |= reason;
  }

  private resume(reason: number): void {
    if (this.paused === 0) return;
    this.paused &= ~reason;
    if (this.paused === 0) this.socket.resume();
  }

  private onEnd(): void {
    this.clientEnded = true;
    if (this.closing) return;
    // Nothing under way (answers perhaps still going out): the connection ends once they have.
    if (this.exchange === undefined && this.parser.idle && this.held === undefined) return this.closeSoon();
    // The client stopped sending: a request cut short is refused; one complete is answered, then the connection closes.
    if (!this.parser.done && !this.parser.idle) this.refuse(refuseRequest('the connection closed in the middle of the request'));
  }

  private onClose(): void {
    this.closing = true;
    this.exchange?.abandon();
    this.host.forget(this);
  }

  /** Writes bytes of the current answer (nothing once the connection is gone). */
  send(text: string): void {
    if (!this.socket.destroyed) this.socket.write(text);
  }

  /** The answer to `exchange` is written: the next request, or the end of the connection. */
  finished(exchange: Exchange, keepOpen: boolean): void {
    if (exchange !== this.exchange) return;
    this.exchange = undefined;
    this.answered += 1;
    // Answered before its body arrived: the body never will (the connection closes).
    if (!exchange.complete) exchange.abandon();
    if (!keepOpen || this.ending || this.closing) {
      this.closeSoon();
      return;
    }
    this.parser.reset();
    if (this.socket.writableNeedDrain) {
      // The client is not reading its answers: no further request is read until it has.
      this.pause(DRAINING);
      this.socket.once('drain', () => this.next());
      return;
    }
    this.next();
  }

  /** Goes on with the next request: bytes already held, then reading. */
  private next(): void {
    if (this.closing) return;
    this.since = Date.now();
    const held = this.held;
    this.held = undefined;
    this.resume(HELD_BYTES | DRAINING | BODY_NOT_ASKED);
    if (held) this.consume(held);
    // A client that stopped sending: what it sent is answered, then the connection ends.
    if (this.clientEnded && !this.closing && this.exchange === undefined) {
      if (this.parser.idle) this.closeSoon();
      else this.refuse(refuseRequest('the connection closed in the middle of the request'));
    }
  }

  /** Closes the connection for `exchange`, if it is still the one being answered. */
  destroyFor(exchange: Exchange): void {
    if (exchange === this.exchange) this.destroy();
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
        `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nDate: ${httpDate(Date.now())}\r\nConnection: close\r\n\r\n${text}`,
      );
    }
    exchange?.abandon();
    this.closeSoon();
  }

  /** Ends the connection once what was written has gone out. */
  private closeSoon(): void {
    this.closing = true;
    this.since = Date.now();
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
  /** The handler has asked for the body (reading goes on). */
  bodyAsked = false;
  /** The body so far: `received.subarray(0, size)`, in storage grown as it arrives (sized once when declared). */
  private received: Buffer | undefined;
  private size = 0;
  private tooLarge: boolean;
  private abandoned = false;
  private bodyPromise: Promise<Buffer> | undefined;
  private waiting: { resolve: (body: Buffer) => void; reject: (error: Error) => void } | undefined;
  private pendingHead = '';
  private readonly headOnly: boolean;
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
    const size = this.size + chunk.length;
    if (size > this.maxBodyBytes) {
      this.tooLarge = true;
      this.received = undefined;
      this.settle();
      return;
    }
    // Copied (the parser's pieces are views valid only during the call) into one buffer: a body
    // sent a byte at a time is not a million small buffers.
    if (!this.received || this.received.length < size) {
      // The declared length is trusted for the allocation only once the handler asks (after the credential).
      const declared = this.bodyAsked && this.head.framing.kind === 'length' ? this.head.framing.length : 0;
      const grown = Buffer.allocUnsafeSlow(Math.min(this.maxBodyBytes, Math.max(size, declared, (this.received?.length ?? 0) * 2, 1024)));
      this.received?.copy(grown, 0, 0, this.size);
      this.received = grown;
    }
    chunk.copy(this.received, this.size);
    this.size = size;
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
    this.bodyPromise ??= this.readBody();
    return this.bodyPromise;
  }

  private readBody(): Promise<Buffer> {
    this.bodyAsked = true;
    if (this.tooLarge) return Promise.reject(new BodyTooLarge());
    if (this.complete) return Promise.resolve(this.bodyBytes());
    if (this.abandoned) return Promise.reject(new BodyAbandoned());
    if (this.head.expectsContinue && this.size === 0) this.connection.send('HTTP/1.1 100 Continue\r\n\r\n');
    const promise = new Promise<Buffer>((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
    this.connection.bodyAsked();
    return promise;
  }

  private bodyBytes(): Buffer {
    return this.received ? this.received.subarray(0, this.size) : Buffer.alloc(0);
  }

  private settle(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    if (this.tooLarge) waiting.reject(new BodyTooLarge());
    else if (this.complete) waiting.resolve(this.bodyBytes());
    else if (this.abandoned) waiting.reject(new BodyAbandoned());
    else this.waiting = waiting;
  }

  writeHead(status: number, headers: Record<string, string | number> = {}): void {
    if (this.headersSent) throw new Error('the answer has already begun');
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
    let framed = status === 204 || status === 304;
    let dated = false;
    let keepOpen = this.keepOpen;
    for (const name of Object.keys(headers)) {
      const value = String(headers[name]);
      if (!HTTP_TOKEN.test(name) || UNSAFE_FIELD_VALUE.test(value)) throw new Error(`the answer's ${JSON.stringify(name)} field is not a valid header field`);
      const key = name.toLowerCase();
      // Whether the connection stays open is this module's to say (it adds the field below).
      if (key === 'connection') {
        if (value.toLowerCase() === 'close') keepOpen = false;
        continue;
      }
      if (key === 'keep-alive') continue;
      if (key === 'content-length') framed = true;
      if (key === 'date') dated = true;
      head += `${name}: ${value}\r\n`;
    }
    // Without its whole request read, the connection cannot find where the next one starts; an
    // answer without a length ends with the connection; and a closing server, or a client that has
    // stopped sending, will not have a next one.
    if (!this.complete || !framed || this.connection.ending) keepOpen = false;
    if (!dated) head += `Date: ${httpDate(Date.now())}\r\n`;
    head += keepOpen ? `Connection: keep-alive\r\nKeep-Alive: timeout=${this.connection.keepAliveSeconds}\r\n\r\n` : 'Connection: close\r\n\r\n';
    this.keepOpen = keepOpen;
    this.headersSent = true;
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
    this.connection.destroyFor(this);
  }
}
