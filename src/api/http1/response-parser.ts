// An incremental HTTP/1.1 response parser (RFC 9112): bytes in, in any pieces; a head, body chunks
// and an end out. Pure: no sockets, no timers (connection-pool.ts drives it). The framing is
// message-parser.ts's, shared with the local control plane's server.
//
// Why our own: node:http's client spent much CPU per request in its ClientRequest, IncomingMessage,
// agent and stream machinery (most of the client's time in a large apply), where the parsing itself
// is a small part. undici cost more still here (its import, then more CPU per request than
// node:http). The subset a JSON API client needs is
// small and fully specified: status line, header fields, then a body framed by Transfer-Encoding:
// chunked, Content-Length or the end of the connection (RFC 9112 §6.3), after any 1xx interim
// answers. Everything else is refused as malformed rather than guessed at.

import { contentLengthOf, headerFieldsOf, listsToken, MessageParser, transferCodingsOf, type Framing, type HeaderFields } from './message-parser.js';

export { HTTP_TOKEN, listsToken, MAX_HEAD_BYTES } from './message-parser.js';

export type ResponseHeaders = HeaderFields;

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

const malformed = (reason: string): Error => new MalformedResponseError(reason);
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;

export class ResponseParser {
  private readonly message: MessageParser;
  /** Whether the connection may be reused after this response (decided by the head). */
  private reusable = false;

  constructor(private readonly events: ResponseEvents) {
    this.message = new MessageParser(
      {
        head: (text) => this.onHead(text),
        body: (chunk) => events.body(chunk),
        end: () => events.end(this.reusable),
      },
      malformed,
    );
  }

  /** Between responses: no byte of a next one has arrived. */
  get idle(): boolean {
    return this.message.idle;
  }

  /** Feeds the next bytes. Throws MalformedResponseError; bytes after a complete response are too. */
  feed(chunk: Buffer): void {
    // Until reset() (the next request), any byte is an error: a server may not answer what was not asked.
    if (this.message.done || this.message.feed(chunk) !== undefined) throw new MalformedResponseError('bytes arrived after the answer was complete');
  }

  /** The connection ended. A body delimited by the end completes; anything else cut short throws. */
  finish(): void {
    this.message.finish();
  }

  /** Ready for the (next) response on this connection. */
  reset(): void {
    if (!this.idle) throw new Error('the previous response has not ended');
    this.message.reset();
  }

  private onHead(text: string): Framing | undefined {
    const lines = text.split('\r\n');
    const statusLine = STATUS_LINE.exec(lines[0]!);
    if (!statusLine) throw new MalformedResponseError(`unexpected status line ${JSON.stringify(lines[0]!.slice(0, 80))}`);
    const minor = Number(statusLine[1]);
    const status = Number(statusLine[2]);
    const headers = headerFieldsOf(lines, malformed);
    if (status === 101) throw new MalformedResponseError('the server switched protocols, which was not asked for');
    // Interim answers (100 Continue, 103 Early Hints): the final one follows on the same connection.
    if (status >= 100 && status < 200) return undefined;
    const connection = headers.connection;
    this.reusable = minor === 1 ? !listsToken(connection, 'close') : listsToken(connection, 'keep-alive');
    this.events.head({ status, headers });
    const transferEncoding = headers['transfer-encoding'];
    if (status === 204 || status === 304) return { kind: 'length', length: 0 };
    if (transferEncoding !== undefined) {
      // A length beside a transfer coding is a smuggling risk, and HTTP/1.0 has no transfer codings:
      // the coding wins and the connection ends after (RFC 9112 §6.1, §6.3).
      if (headers['content-length'] !== undefined || minor === 0) this.reusable = false;
      // This client sends no TE header, so chunked is the only coding a server may use; any other
      // would hand the caller encoded bytes as if they were the body.
      const codings = transferCodingsOf(transferEncoding);
      if (codings.length !== 1 || codings[0] !== 'chunked')
        throw new MalformedResponseError(`a transfer coding this client did not ask for: ${JSON.stringify(codings.join(', ').slice(0, 80))}`);
      return { kind: 'chunked' };
    }
    if (headers['content-length'] !== undefined) return { kind: 'length', length: contentLengthOf(headers['content-length'], malformed) };
    this.reusable = false;
    return { kind: 'until-close' };
  }
}
