// The part of HTTP/1.1 (RFC 9112) that requests and answers share: a head (start line and header
// fields, up to an empty line), then a body framed by its length, by chunked transfer coding or, for
// an answer only, by the end of the connection. Incremental and pure: bytes in, in any pieces; the
// head's text, body pieces and an end out. What a head means (which framing, whether the connection
// stays open) is the caller's: response-parser.ts for the client, server/http1 for the local
// control plane.

/** Longest head (start line and header fields) accepted: node's default limit. */
export const MAX_HEAD_BYTES = 16 * 1024;
/** Longest chunk-size line (size, extensions) accepted. */
const MAX_CHUNK_LINE_BYTES = 4 * 1024;

/** How a message's body is delimited, as its head decides (RFC 9112 §6.3). */
export type Framing = { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'until-close' };

export interface MessageHandlers {
  /**
   * The head's text (latin1, without the empty line ending it); returns how the body is framed, or
   * undefined for an interim head (1xx) after which another head follows. Throws to refuse it.
   */
  head(text: string): Framing | undefined;
  /** Part of the body (framing removed); a view of the fed bytes, valid only during the call. */
  body(chunk: Buffer): void;
  /** The whole message has arrived. */
  end(): void;
}

/**
 * Makes the error a malformed message is refused with (which differs between client and server);
 * `status` is what a server answers a request refused so (400 unless said).
 */
export type Refusal = (reason: string, status?: number) => Error;

type State =
  | { kind: 'head' }
  | { kind: 'length'; remaining: number }
  | { kind: 'chunk-size' }
  | { kind: 'chunk-data'; remaining: number }
  | { kind: 'chunk-end' }
  | { kind: 'trailers' }
  | { kind: 'until-close' }
  | { kind: 'done' };

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

export class MessageParser {
  private state: State = { kind: 'head' };
  /**
   * Bytes of a head or a line not yet complete: `pending.subarray(0, pendingLength)`, in storage
   * with room to grow, so that bytes arriving one at a time cost linear time, not quadratic.
   */
  private pending: Buffer | undefined;
  private pendingLength = 0;
  /** How many of the incomplete bytes were already searched for the end of their head or line. */
  private searched = 0;
  /** Bytes of the trailer section so far (it is bounded as a head is). */
  private trailerBytes = 0;

  constructor(
    private readonly handlers: MessageHandlers,
    private readonly refuse: Refusal,
  ) {}

  /** Between messages: no byte of a next one has arrived. */
  get idle(): boolean {
    return this.state.kind === 'done' || (this.state.kind === 'head' && this.pendingLength === 0);
  }

  /** The message is complete (until reset()). */
  get done(): boolean {
    return this.state.kind === 'done';
  }

  /**
   * Feeds the next bytes; returns those after the end of the message, which belong to the next one
   * and are not consumed (undefined: none). Throws what `refuse` makes.
   */
  feed(chunk: Buffer): Buffer | undefined {
    let data = this.pendingLength > 0 ? this.appendToPending(chunk) : chunk;
    this.pendingLength = 0;
    while (data.length > 0) {
      if (this.state.kind === 'done') return data;
      const used = this.step(data);
      if (used < 0) {
        this.keepPending(data);
        return undefined;
      }
      this.searched = 0;
      data = data.subarray(used);
    }
    return undefined;
  }

  private appendToPending(chunk: Buffer): Buffer {
    const length = this.pendingLength + chunk.length;
    if (this.pending!.length < length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(length, this.pending!.length * 2));
      this.pending!.copy(grown, 0, 0, this.pendingLength);
      this.pending = grown;
    }
    chunk.copy(this.pending!, this.pendingLength);
    return this.pending!.subarray(0, length);
  }

  /** Keeps incomplete bytes: the storage's own from its start as they are, any others copied (a fed chunk is the caller's). */
  private keepPending(data: Buffer): void {
    const pending = this.pending;
    if (pending && data.buffer === pending.buffer && data.byteOffset === pending.byteOffset) {
      this.pendingLength = data.length;
      return;
    }
    if (!pending || pending.length < data.length) this.pending = Buffer.allocUnsafeSlow(Math.max(256, data.length * 2));
    // A later part of the storage moves to its start (Buffer#copy allows the overlap).
    data.copy(this.pending!, 0);
    this.pendingLength = data.length;
  }

  /** The connection ended: true when that ended a body delimited by it; throws when cut short. */
  finish(): boolean {
    if (this.state.kind === 'until-close') {
      this.state = { kind: 'done' };
      this.handlers.end();
      return true;
    }
    if (!this.idle) throw this.refuse('the connection closed in the middle of the message');
    return false;
  }

  /** Ready for the next message on this connection. */
  reset(): void {
    if (!this.idle) throw new Error('the previous message has not ended');
    this.state = { kind: 'head' };
  }

  /** Consumes from `data`; returns the bytes used, or -1 when more are needed to go on. */
  private step(data: Buffer): number {
    const state = this.state;
    switch (state.kind) {
      case 'done':
        return 0;
      case 'head': {
        const from = Math.max(0, this.searched - (HEAD_END.length - 1));
        const end = data.indexOf(HEAD_END, from);
        // A line ended by a bare LF would never end the head: refused at once, as node:http does,
        // rather than waiting out the timeout for a CRLF that is not coming.
        if (hasBareLineFeed(data, from, end < 0 ? data.length : end)) throw this.refuse('a line of the head ends with a bare LF, not CRLF');
        if (end < 0) {
          this.searched = data.length;
          if (data.length > MAX_HEAD_BYTES) throw this.refuse(`the head is longer than ${MAX_HEAD_BYTES} bytes`, 431);
          return -1;
        }
        if (end > MAX_HEAD_BYTES) throw this.refuse(`the head is longer than ${MAX_HEAD_BYTES} bytes`, 431);
        const framing = this.handlers.head(data.toString('latin1', 0, end));
        if (framing) this.frame(framing);
        return end + HEAD_END.length;
      }
      case 'length': {
        const take = Math.min(state.remaining, data.length);
        this.handlers.body(data.subarray(0, take));
        state.remaining -= take;
        if (state.remaining === 0) this.complete();
        return take;
      }
      case 'chunk-size': {
        const end = data.indexOf(CRLF, Math.max(0, this.searched - 1));
        if (hasBareLineFeed(data, Math.max(0, this.searched - 1), end < 0 ? data.length : end))
          throw this.refuse('a chunk-size line ends with a bare LF, not CRLF');
        if (end < 0) {
          this.searched = data.length;
          if (data.length > MAX_CHUNK_LINE_BYTES) throw this.refuse('a chunk-size line is too long');
          return -1;
        }
        // Checked on the complete line too: one read may carry a whole over-long line.
        if (end > MAX_CHUNK_LINE_BYTES) throw this.refuse('a chunk-size line is too long');
        const size = this.chunkSizeOf(data.toString('latin1', 0, end));
        this.state = size === 0 ? { kind: 'trailers' } : { kind: 'chunk-data', remaining: size };
        this.trailerBytes = 0;
        return end + CRLF.length;
      }
      case 'chunk-data': {
        const take = Math.min(state.remaining, data.length);
        this.handlers.body(data.subarray(0, take));
        state.remaining -= take;
        if (state.remaining === 0) this.state = { kind: 'chunk-end' };
        return take;
      }
      case 'chunk-end': {
        if (data.length < CRLF.length) return -1;
        if (data[0] !== 0x0d || data[1] !== 0x0a) throw this.refuse('a chunk does not end with CRLF');
        this.state = { kind: 'chunk-size' };
        return CRLF.length;
      }
      case 'trailers': {
        // Trailer fields are read past and ignored; an empty line ends them (and the message).
        const end = data.indexOf(CRLF, Math.max(0, this.searched - 1));
        if (hasBareLineFeed(data, Math.max(0, this.searched - 1), end < 0 ? data.length : end))
          throw this.refuse('a trailer line ends with a bare LF, not CRLF');
        if (end < 0) {
          this.searched = data.length;
          if (this.trailerBytes + data.length > MAX_HEAD_BYTES) throw this.refuse('the trailer section is too long');
          return -1;
        }
        this.trailerBytes += end + CRLF.length;
        if (this.trailerBytes > MAX_HEAD_BYTES) throw this.refuse('the trailer section is too long');
        if (end === 0) this.complete();
        return end + CRLF.length;
      }
      case 'until-close':
        this.handlers.body(data);
        return data.length;
    }
  }

  private frame(framing: Framing): void {
    if (framing.kind === 'chunked') this.state = { kind: 'chunk-size' };
    else if (framing.kind === 'until-close') this.state = { kind: 'until-close' };
    else if (framing.length === 0) this.complete();
    else this.state = { kind: 'length', remaining: framing.length };
  }

  private complete(): void {
    this.state = { kind: 'done' };
    this.handlers.end();
  }

  private chunkSizeOf(line: string): number {
    const size = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/.exec(line);
    if (!size) throw this.refuse(`a chunk size is not hexadecimal: ${JSON.stringify(line.slice(0, 40))}`);
    return parseInt(size[1]!, 16);
  }
}

/** Whether `data[from, to)` holds an LF not preceded by CR (a CR at `from - 1` counts). */
function hasBareLineFeed(data: Buffer, from: number, to: number): boolean {
  for (let at = data.indexOf(0x0a, from); at >= 0 && at < to; at = data.indexOf(0x0a, at + 1)) {
    if (at === 0 || data[at - 1] !== 0x0d) return true;
  }
  return false;
}

/** An HTTP token (RFC 9110 §5.6.2): what a field name (and a request's method) must be. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: visible characters, spaces and tabs, and obs-text (bytes 0x80-0xFF, as latin1).
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Fields whose repeats node drops (the first one counts); set-cookie collects; cookie joins with "; "; others join with ", ". */
const FIRST_WINS = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'referer',
  'host',
  'authorization',
  'proxy-authorization',
  'if-modified-since',
  'if-unmodified-since',
  'from',
  'location',
  'max-forwards',
  'retry-after',
  'etag',
  'last-modified',
  'server',
  'age',
  'expires',
]);

export type HeaderFields = Record<string, string | string[]>;

/**
 * The header fields of a head's lines (the first, the start line, skipped), by lower-case name, in
 * an object without a prototype (a field named `constructor` or `__proto__` is a field like any
 * other). Folded lines (obs-fold, a line starting with a space or tab) are refused rather than
 * unfolded: RFC 9112 §5.2 allows either, and a fold where none is expected is more often an attack
 * on a proxy in between than a real header. So are two different Content-Length values.
 */
export function headerFieldsOf(lines: readonly string[], refuse: Refusal): HeaderFields {
  const headers = Object.create(null) as HeaderFields;
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!;
    const colon = line.indexOf(':');
    if (colon <= 0) throw refuse(`a header line has no name: ${JSON.stringify(line.slice(0, 80))}`);
    const name = line.slice(0, colon);
    if (!HTTP_TOKEN.test(name)) throw refuse(`a header name is not a token: ${JSON.stringify(name.slice(0, 80))}`);
    // Optional whitespace is spaces and tabs only: trim() would also take \v, \f and U+00A0.
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (!FIELD_VALUE.test(value)) throw refuse(`the header ${name} holds a control character`);
    const key = name.toLowerCase();
    const seen = headers[key];
    if (key === 'set-cookie') headers[key] = seen === undefined ? [value] : [...(seen as string[]), value];
    else if (key === 'content-length' && seen !== undefined && seen !== value) throw refuse('two different Content-Length values');
    else if (seen === undefined) headers[key] = value;
    else if (key === 'cookie') headers[key] = `${seen as string}; ${value}`;
    else if (!FIRST_WINS.has(key)) headers[key] = `${seen as string}, ${value}`;
  }
  return headers;
}

/** Whether a comma-separated header value lists `token` (case-insensitive). */
export function listsToken(value: string | string[] | undefined, token: string): boolean {
  if (value === undefined) return false;
  const text = Array.isArray(value) ? value.join(',') : value;
  return text.split(',').some((item) => item.trim().toLowerCase() === token);
}

/** The transfer codings a Transfer-Encoding field lists, lower-case, in order. */
export function transferCodingsOf(value: string | string[]): string[] {
  return (Array.isArray(value) ? value.join(',') : value).split(',').map((coding) => coding.trim().toLowerCase());
}

export function contentLengthOf(value: string | string[], refuse: Refusal): number {
  const text = Array.isArray(value) ? value[0]! : value;
  if (!/^\d{1,15}$/.test(text)) throw refuse(`Content-Length is not a length: ${JSON.stringify(text.slice(0, 40))}`);
  return Number(text);
}
