// One HTTP exchange with the Control API: a POST over a keep-alive HTTP/1.1 connection to one
// origin (http1/), directly or through an HTTP proxy (proxy.ts: a CONNECT tunnel for https, the
// proxy's absolute-form requests for http). Failures to reach the server become ApiErrors with
// status 0 and a transport code that says what to check.
//
// Why not node:http or undici: see http1/response-parser.ts. node:tls is loaded only for https URLs.
import type { Socket } from 'node:net';
import { connect as connectTcp, isIP } from 'node:net';
import { createRequire } from 'node:module';
import type { ConnectionOptions, SecureContext, TLSSocket } from 'node:tls';
import { ApiError } from '../errors.js';
import { codedError } from './http1/connection-pool.js';
import { exchangerFor, type ConnectionFactory, type Exchanger } from './exchanger.js';
import { HTTP_TOKEN, type ResponseHeaders } from './http1/response-parser.js';
import { credentialsRefused, TunnelSocket } from './http1/tunnel.js';
import type { ProxyRoute } from './proxy.js';
import { redactText } from './redact.js';
import { DEFAULT_MAX_RESPONSE_BYTES, formatBytes } from './response-limit.js';
import { portOf, unbracketed } from '../util/host.js';

export interface Exchange {
  status: number;
  headers: ResponseHeaders;
  text: string;
}

export interface SendOptions {
  path: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The largest answer body accepted (response-limit.ts; 64 MiB unless said). */
  maxResponseBytes?: number;
  rpc: string;
  requestId: string;
}

/** At most this many connections to one origin (the apply's parallelism never needs more). */
const MAX_SOCKETS = 64;

// Visible ASCII, spaces and tabs: no CR or LF (no header injection), nothing that needs an encoding.
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
const REQUEST_TARGET = /^\/[\x21-\x7e]*$/;

export class Transport {
  private readonly url: URL;
  private pool: Exchanger | undefined;
  private readonly settled = new Set<Promise<unknown>>();
  private closed = false;

  /** Ahead of the path for an http:// origin behind a proxy (absolute-form), with the proxy's credentials. */
  private readonly forwarding: { target: string; headers: string } | undefined;

  /**
   * `urlSource`: where the URL came from (`AGENTFORM_URL_PRODUCTION`), named when it cannot be
   * reached; `proxy`: the HTTP proxy to go through (proxyFor), if any.
   */
  constructor(
    readonly origin: string,
    private readonly urlSource = '--url or AGENTFORM_URL',
    private readonly proxy?: ProxyRoute,
  ) {
    this.url = new URL(origin);
    if (proxy && this.url.protocol === 'http:') {
      this.forwarding = { target: this.url.origin, headers: proxy.authorization === undefined ? '' : `Proxy-Authorization: ${proxy.authorization}\r\n` };
    }
  }

  private connections(): Exchanger {
    this.pool ??= exchangerFor(socketFactory(this.url, this.proxy), MAX_SOCKETS);
    return this.pool;
  }

  async send(options: SendOptions): Promise<Exchange> {
    if (this.closed) throw this.failure(codedError('CLIENT_CLOSED', 'the client was closed'), options);
    let exchange: Promise<Exchange>;
    try {
      exchange = this.connections().request({
        head: requestHead(options, this.url.host, this.forwarding),
        ...(options.body !== undefined ? { body: options.body } : {}),
        timeoutMs: options.timeoutMs,
        maxBodyBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      });
    } catch (error) {
      throw this.failure(error, options);
    }
    const done = exchange.then(
      () => undefined,
      () => undefined,
    );
    this.settled.add(done);
    void done.then(() => this.settled.delete(done));
    let answer: Exchange;
    try {
      answer = await exchange;
    } catch (error) {
      throw this.failure(error, options);
    }
    // Through a proxy's absolute-form requests, the proxy's own refusal is an ordinary answer.
    if (this.forwarding && this.proxy && isProxyRefusal(answer)) {
      const message = credentialsRefused(this.proxy.label, answer.status, '', this.proxy.authorization !== undefined);
      throw new ApiError(options.rpc, answer.status, 'proxy', `${message}${proxyContext(this.origin, this.proxy)}`, undefined, options.requestId);
    }
    return answer;
  }

  private failure(error: unknown, options: SendOptions): ApiError {
    return transportError(error, { origin: this.origin, urlSource: this.urlSource, proxy: this.proxy, forwarding: this.forwarding !== undefined }, options);
  }

  /** Opens connections ahead of a burst of up to `count` requests (ConnectionPool.preconnect); how many it opened. */
  preconnect(count: number): number {
    return this.closed ? 0 : this.connections().preconnect(count);
  }

  /** Waits for the requests in flight, then closes the connections. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.settled]);
    this.pool?.close();
  }

  /** Ends everything now: requests in flight fail instead of being waited for. */
  async destroy(): Promise<void> {
    this.closed = true;
    this.pool?.destroy(codedError('CLIENT_DESTROYED', 'the client was closed'));
    await Promise.all([...this.settled]);
  }
}

/**
 * The request line and header fields, as node sent them for the same request: ours in order, then
 * the length and Host, then Connection (without a body: Host, Connection, then a zero length).
 * Through a proxy to an http:// origin, the target is the absolute URL and the proxy's credentials follow ours.
 */
function requestHead(options: Pick<SendOptions, 'path' | 'headers' | 'body'>, host: string, forwarding?: { target: string; headers: string }): string {
  if (!REQUEST_TARGET.test(options.path)) throw codedError('ERR_UNESCAPED_CHARACTERS', 'the request path holds characters that must be escaped');
  let head = `POST ${forwarding ? forwarding.target : ''}${options.path} HTTP/1.1\r\n`;
  for (const name in options.headers) head += headerLine(name, options.headers[name]!);
  if (forwarding) head += forwarding.headers;
  if (options.body !== undefined) head += `content-length: ${Buffer.byteLength(options.body)}\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`;
  else head += `Host: ${host}\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n`;
  return head;
}

function headerLine(name: string, value: string): string {
  if (!HTTP_TOKEN.test(name)) throw codedError('ERR_INVALID_HTTP_TOKEN', `the header name ${JSON.stringify(name)} is not a valid HTTP token`);
  if (!HEADER_VALUE.test(value))
    throw codedError('ERR_INVALID_CHAR', `the header ${name} holds a character that cannot be sent (a line break, a control character or non-ASCII text)`);
  return `${name}: ${value}\r\n`;
}

/**
 * Opens a TCP connection (http) or a TLS one that checks the server's certificate (https); through
 * a proxy, TCP to the proxy (http) or TLS inside a CONNECT tunnel (https).
 */
function socketFactory(url: URL, proxy: ProxyRoute | undefined): ConnectionFactory {
  const host = unbracketed(url.hostname);
  const https = url.protocol === 'https:';
  const port = portOf(url);
  if (!https) return proxy ? () => connectTcp({ host: proxy.host, port: proxy.port }) : () => connectTcp({ host, port });
  // require, not import(): the bundle's chunks are compiled through vm.Script for their code cache, where import() has no loader.
  const tls = createRequire(import.meta.url)('node:tls') as typeof import('node:tls');
  // The last session, offered again: later connections resume it instead of a full handshake.
  let session: Buffer | undefined;
  // One context (the trusted certificates, loaded once) for every connection: tls.connect makes a
  // new one each time otherwise, which slows every connection. The checks are per connection, not
  // in it.
  let secureContext: SecureContext | undefined;
  return () => {
    secureContext ??= tls.createSecureContext();
    // Said outright, so that NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment cannot turn the check off.
    const options: ConnectionOptions = {
      host,
      port,
      rejectUnauthorized: true,
      secureContext,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ...(session ? { session } : {}),
    };
    const secure = (socket?: Socket): TLSSocket => {
      const tlsSocket = tls.connect(socket ? { ...options, socket } : options);
      tlsSocket.on('session', (next: Buffer) => (session = next));
      return tlsSocket;
    };
    if (!proxy) return secure();
    return new TunnelSocket({
      proxySocket: connectTcp({ host: proxy.host, port: proxy.port }),
      authority: `${url.hostname}:${port}`,
      ...(proxy.authorization !== undefined ? { authorization: proxy.authorization } : {}),
      proxyLabel: proxy.label,
      wrap: secure,
    });
  };
}

/** The transport failure codes a retry may help with: the request may or may not have taken effect. */
const UNCERTAIN_TRANSPORT_CODES = new Set(['connection_reset', 'timeout']);

/**
 * The transport failure codes worth another attempt: the uncertain ones, and a proxy that could not
 * open its tunnel (a 5xx to CONNECT), which the request never went through.
 */
export const RETRYABLE_TRANSPORT_CODES = new Set([...UNCERTAIN_TRANSPORT_CODES, 'proxy_unavailable']);

/** The transport failure codes after which the request is known not to have been sent. */
export const NOT_SENT_TRANSPORT_CODES = new Set(['proxy_unavailable']);

/**
 * A proxy asking for credentials: a 407, a Proxy-Authenticate challenge, or a 401 with a Basic
 * challenge (tinyproxy answers so); the Control API's keys are Bearer tokens, so a Basic challenge
 * is not the API's.
 */
function isProxyRefusal(answer: Exchange): boolean {
  const challenge = answer.headers['www-authenticate'];
  return answer.status === 407 || answer.headers['proxy-authenticate'] !== undefined || (answer.status === 401 && /^\s*basic\b/i.test(String(challenge ?? '')));
}

/** Where a proxy failure happened and what to check. */
function proxyContext(origin: string, proxy: ProxyRoute): string {
  return ` (for ${origin}; check ${proxy.source} and NO_PROXY)`;
}

interface FailureContext {
  origin: string;
  urlSource: string;
  proxy: ProxyRoute | undefined;
  /** Connections go to the proxy itself (an http:// origin), so failing to connect is the proxy's. */
  forwarding: boolean;
}

function transportError(error: unknown, context: FailureContext, options: SendOptions): ApiError {
  const { origin, urlSource, proxy } = context;
  const cause = error as { code?: string | number; name?: string; message?: string; cause?: { code?: string } };
  const code = String(cause.code ?? cause.cause?.code ?? '');
  const make = (transportCode: string, message: string) => new ApiError(options.rpc, 0, transportCode, redactText(message), undefined, options.requestId);
  if (proxy) {
    // Connections go to the proxy when forwarding: failing to make one is the proxy's failure.
    const syscall = (error as { syscall?: string }).syscall;
    if (code.startsWith('PROXY_') || (context.forwarding && (syscall === 'connect' || syscall === 'getaddrinfo'))) {
      const message = code.startsWith('PROXY_') ? (cause.message ?? code) : `could not connect to the proxy ${proxy.label} (${code})`;
      return make(code === 'PROXY_UNAVAILABLE' ? 'proxy_unavailable' : 'proxy', `${message}${proxyContext(origin, proxy)}`);
    }
    // Anything else (a timeout, TLS, a reset) also happened through the proxy: say so.
    const direct = transportError(error, { ...context, proxy: undefined }, options);
    return make(direct.code, `${direct.message} (through the proxy ${proxy.label}, from ${proxy.source})`);
  }
  // close() or cancel(): the answer is no longer wanted; not a network failure.
  if (code === 'CLIENT_CLOSED' || code === 'CLIENT_DESTROYED') {
    return make('cancelled', 'the request was cancelled: the client was closed before its answer arrived');
  }
  if (code === 'ECONNREFUSED') {
    return make('connection_refused', `could not connect to ${origin}: connection refused. Is the Control API running there? Check ${urlSource}.`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return make('dns', `could not resolve the host of ${origin} (${code}). Check the URL and the machine's DNS.`);
  }
  if (code === 'RESPONSE_TOO_LARGE') {
    return make(
      'response_too_large',
      `the server's answer to ${options.rpc} exceeded ${formatBytes(options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES)} (AGENTFORM_MAX_RESPONSE_BYTES)`,
    );
  }
  if (code === 'CLIENT_TIMEOUT' || code === 'ETIMEDOUT') {
    return make('timeout', `no answer from ${origin} within ${options.timeoutMs} ms`);
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return make('connection_reset', `the connection to ${origin} closed before an answer arrived`);
  }
  // EPROTO: the handshake failed (an https:// URL pointing at a plain-http port answers "wrong version number").
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code) || code === 'EPROTO' || /SSL routines/.test(cause.message ?? '')) {
    return make('tls', `TLS with ${origin} failed (${code}). Check the server's certificate; agentform never turns certificate checks off.`);
  }
  return make('network', `request to ${origin} failed: ${cause.message || code || String(error)}`);
}
