// An incremental HTTP/1.1 response parser (RFC 9112): bytes in, in any pieces; a head, body chunks
// and an end out. Pure: no sockets, no timers (connection.ts drives it).
//
// Why our own: node:http's client spent ~200 µs of CPU per request in its ClientRequest,
// IncomingMessage, agent and stream machinery (an apply of 5,000 agents: ~0.9 s of the client's
// ~1.7 s while writing), where the parsing itself is a small part. undici cost more still here (its
// import ~80 ms, then more CPU per request than node:http). The subset a JSON API client needs is
// small and fully specified: status line, header fields, then a body framed by Transfer-Encoding:
// chunked, Content-Length or the end of the connection (RFC 9112 §6.3), after any 1xx interim
// answers. Everything else is refused as malformed rather than guessed at.

/** Longest head (status line and header fields) accepted: node's default limit. */
export const MAX_HEAD_BYTES = 16 * 1024;
/** Longest chunk-size line (size, extensions) accepted. */
const MAX_CHUNK_LINE_BYTES = 4 * 1024;

export type ResponseHeaders = Record<string, string | string[]>;

export interface ResponseHead {
  status: number;
  headers: ResponseHeaders;
}

export interface ResponseEvents {
  /** The final (non-1xx) head. */
  head(head: ResponseHead): void;
  /** Part of the body (framing removed); a view of the fed bytes, valid only during the call. */
  body(chunk: Buffer): void;
  /** The whole response has arrived; `reusable`: the connection may carry another request. */
  end(reusable: boolean): void;
}

/** The answer broke HTTP/1.1's rules; the connection cannot be used any more. */
export class MalformedResponseError extends Error {
  readonly code = 'MALFORMED_RESPONSE';
  constructor(reason: string) {
    super(`the answer is not valid HTTP/1.1: ${reason}`);
  }
}

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
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;
/** An HTTP token (RFC 9110 §5.6.2): what a field name must be, in a request or an answer. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: visible characters, spaces and tabs, and obs-text (bytes 0x80-0xFF, as latin1).
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Fields whose repeats node drops (the first one counts); set-cookie collects; others join with ", ". */
const FIRST_WINS = new Set(['content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization', 'proxy-authorization', 'if-modified-since', 'if-unmodified-since', 'from', 'location', 'max-forwards', 'retry-after', 'etag', 'last-modified', 'server', 'age', 'expires']);

/** Whether a comma-separated header value lists `token` (case-insensitive). */
export function listsToken(value: string | string[] | undefined, token: string): boolean {
  if (value === undefined) return false;
  const text = Array.isArray(value) ? value.join(',') : value;
  return text.split(',').some((item) => item.trim().toLowerCase() === token);
}

export class ResponseParser {
  private state: State = { kind: 'head' };
  /** Bytes of a head or a line not yet complete. */
  private pending: Buffer | undefined;
  /** Whether the connection may be reused after this response (decided by the head). */
  private reusable = false;

  constructor(private readonly events: ResponseEvents) {}

  /** Between responses: no byte of a next one has arrived. */
  get idle(): boolean {
    return this.state.kind === 'done' || (this.state.kind === 'head' && this.pending === undefined);
  }

  /** Feeds the next bytes. Throws MalformedResponseError; bytes after a complete response are too. */
  feed(chunk: Buffer): void {
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    while (data.length > 0) {
      const used = this.step(data);
      if (used < 0) {
        this.pending = data;
        return;
      }
      data = data.subarray(used);
    }
  }

  /** The connection ended. A body delimited by the end completes; anything else cut short throws. */
  finish(): void {
    if (this.state.kind === 'until-close') {
      this.state = { kind: 'done' };
      this.events.end(false);
      return;
    }
    if (!this.idle) throw new MalformedResponseError('the connection closed in the middle of the answer');
  }

  /** Consumes from `data`; returns the bytes used, or -1 when more are needed to go on. */
  private step(data: Buffer): number {
    const state = this.state;
    switch (state.kind) {
      case 'done':
        throw new MalformedResponseError('bytes arrived after the answer was complete');
      case 'head': {
        const end = data.indexOf(HEAD_END);
        if (end < 0) {
          if (data.length > MAX_HEAD_BYTES) throw new MalformedResponseError(`the head is longer than ${MAX_HEAD_BYTES} bytes`);
          return -1;
        }
        if (end > MAX_HEAD_BYTES) throw new MalformedResponseError(`the head is longer than ${MAX_HEAD_BYTES} bytes`);
        this.onHead(data.toString('latin1', 0, end));
        return end + HEAD_END.length;
      }
      case 'length': {
        const take = Math.min(state.remaining, data.length);
        this.events.body(data.subarray(0, take));
        state.remaining -= take;
        if (state.remaining === 0) this.complete();
        return take;
      }
      case 'chunk-size': {
        const end = data.indexOf(CRLF);
        if (end < 0) {
          if (data.length > MAX_CHUNK_LINE_BYTES) throw new MalformedResponseError('a chunk-size line is too long');
          return -1;
        }
        const size = chunkSizeOf(data.toString('latin1', 0, end));
        this.state = size === 0 ? { kind: 'trailers' } : { kind: 'chunk-data', remaining: size };
        return end + CRLF.length;
      }
      case 'chunk-data': {
        const take = Math.min(state.remaining, data.length);
        this.events.body(data.subarray(0, take));
        state.remaining -= take;
        if (state.remaining === 0) this.state = { kind: 'chunk-end' };
        return take;
      }
      case 'chunk-end': {
        if (data.length < CRLF.length) return -1;
        if (data[0] !== 0x0d || data[1] !== 0x0a) throw new MalformedResponseError('a chunk does not end with CRLF');
        this.state = { kind: 'chunk-size' };
        return CRLF.length;
      }
      case 'trailers': {
        // Trailer fields are read past and ignored; an empty line ends them (and the response).
        const end = data.indexOf(CRLF);
        if (end < 0) {
          if (data.length > MAX_HEAD_BYTES) throw new MalformedResponseError('the trailer section is too long');
          return -1;
        }
        if (end === 0) this.complete();
        return end + CRLF.length;
      }
      case 'until-close':
        this.events.body(data);
        return data.length;
    }
  }

  private onHead(text: string): void {
    const lines = text.split('\r\n');
    const statusLine = STATUS_LINE.exec(lines[0]!);
    if (!statusLine) throw new MalformedResponseError(`unexpected status line ${JSON.stringify(lines[0]!.slice(0, 80))}`);
    const minor = Number(statusLine[1]);
    const status = Number(statusLine[2]);
    const headers = headersOf(lines);
    if (status === 101) throw new MalformedResponseError('the server switched protocols, which was not asked for');
    // Interim answers (100 Continue, 103 Early Hints): the final one follows on the same connection.
    if (status >= 100 && status < 200) return;
    const connection = headers.connection;
    this.reusable = minor === 1 ? !listsToken(connection, 'close') : listsToken(connection, 'keep-alive');
    this.events.head({ status, headers });
    const transferEncoding = headers['transfer-encoding'];
    if (status === 204 || status === 304) {
      this.complete();
    } else if (transferEncoding !== undefined) {
      // A length beside a transfer coding is a smuggling risk, and HTTP/1.0 has no transfer codings:
      // the coding wins and the connection ends after (RFC 9112 §6.1, §6.3).
      if (headers['content-length'] !== undefined || minor === 0) this.reusable = false;
      // This client sends no TE header, so chunked is the only coding a server may use; any other
      // would hand the caller encoded bytes as if they were the body.
      const codings = (Array.isArray(transferEncoding) ? transferEncoding.join(',') : transferEncoding).split(',').map((coding) => coding.trim().toLowerCase());
      if (codings.length !== 1 || codings[0] !== 'chunked') throw new MalformedResponseError(`a transfer coding this client did not ask for: ${JSON.stringify(codings.join(', ').slice(0, 80))}`);
      this.state = { kind: 'chunk-size' };
    } else if (headers['content-length'] !== undefined) {
      const length = contentLengthOf(headers['content-length']);
      this.state = { kind: 'length', remaining: length };
      if (length === 0) this.complete();
    } else {
      this.reusable = false;
      this.state = { kind: 'until-close' };
    }
  }

  // Until reset() (the next request), any byte is an error: a server may not answer what was not asked.
  private complete(): void {
    this.state = { kind: 'done' };
    this.events.end(this.reusable);
  }

  /** Ready for the (next) response on this connection. */
  reset(): void {
    if (!this.idle) throw new Error('the previous response has not ended');
    this.state = { kind: 'head' };
  }
}

// Folded lines (obs-fold, a line starting with a space or tab) are refused rather than unfolded:
// RFC 9112 §5.2 lets a client unfold them, but no server of this API's kind sends them, and a fold
// where none is expected is more often an attack on a proxy in between than a real header.
function headersOf(lines: string[]): ResponseHeaders {
  // No prototype: a field named `constructor` or `__proto__` is a field like any other.
  const headers = Object.create(null) as ResponseHeaders;
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MalformedResponseError(`a header line has no name: ${JSON.stringify(line.slice(0, 80))}`);
    const name = line.slice(0, colon);
    if (!HTTP_TOKEN.test(name)) throw new MalformedResponseError(`a header name is not a token: ${JSON.stringify(name.slice(0, 80))}`);
    // Optional whitespace is spaces and tabs only: trim() would also take \v, \f and U+00A0.
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (!FIELD_VALUE.test(value)) throw new MalformedResponseError(`the header ${name} holds a control character`);
    const key = name.toLowerCase();
    const seen = headers[key];
    if (key === 'set-cookie') headers[key] = seen === undefined ? [value] : [...(seen as string[]), value];
    else if (key === 'content-length' && seen !== undefined && seen !== value) throw new MalformedResponseError('two different Content-Length values');
    else if (seen === undefined) headers[key] = value;
    else if (!FIRST_WINS.has(key)) headers[key] = `${seen as string}, ${value}`;
  }
  return headers;
}

function contentLengthOf(value: string | string[]): number {
  const text = Array.isArray(value) ? value[0]! : value;
  if (!/^\d{1,15}$/.test(text)) throw new MalformedResponseError(`Content-Length is not a length: ${JSON.stringify(text.slice(0, 40))}`);
  return Number(text);
}

function chunkSizeOf(line: string): number {
  const size = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/.exec(line);
  if (!size) throw new MalformedResponseError(`a chunk size is not hexadecimal: ${JSON.stringify(line.slice(0, 40))}`);
  return parseInt(size[1]!, 16);
}
