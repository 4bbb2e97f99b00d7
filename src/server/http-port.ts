// What the local control plane (http.ts) needs of an HTTP/1.1 server: a request it can read once
// the caller is known, and an answer it writes. Two servers keep it: the hand-written one in
// http1/ (the fast path) and node's own in http-server.ts (the plain path, under
// AGENTFORM_OPTIMIZATIONS=off); http-factory.ts picks one. Both are node `http.Server`s, so
// whatever observes one ('connection', 'request') sees the same events from either.
import type { IncomingHttpHeaders } from 'node:http';

/** Header fields by lower-case name, repeats joined as node's parser joins them. */
export type RequestHeaders = IncomingHttpHeaders;

/** The deadlines and limits both servers keep. */
export interface ServerLimits {
  /** A request's head must arrive within this of its first byte (else 408 and close). */
  headersMs: number;
  /** The whole request must arrive within this (else 408 and close). */
  requestMs: number;
  /** An idle connection is closed after this. */
  keepAliveMs: number;
  /** A larger body, declared or sent, rejects `body()` with BodyTooLarge. */
  maxBodyBytes: number;
  /** Connections open at once (default: no cap); a request on one more is answered 503, `retry-after: 1`. */
  maxConnections?: number;
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
  /**
   * The body once it has all arrived. Rejects with BodyTooLarge past maxBodyBytes (declared or
   * sent), BodyAbandoned if it never will. A client waiting on `Expect: 100-continue` is told to
   * send it only now, so one refused before (401) never sends it.
   */
  body(): Promise<Buffer>;
}

export interface HttpResponse {
  readonly headersSent: boolean;
  /** The answer can no longer be delivered (the connection is gone, or the request was refused meanwhile). */
  readonly destroyed: boolean;
  /**
   * `connection: close` among the fields closes the connection after this answer; so does an answer
   * begun before the request's whole body has arrived (the rest would be read as a request).
   */
  writeHead(status: number, headers?: Record<string, string | number>): void;
  write(text: string): void;
  end(text?: string): void;
  /** Closes the connection without an answer. */
  destroy(): void;
}

export type RequestHandler = (request: HttpRequest, response: HttpResponse) => void;
