// One HTTP exchange with the Control API over node:http(s) with a keep-alive agent per base URL.
// Failures to reach the server become ApiErrors with status 0 and a transport code that says what
// to check.
//
// Why not undici (which this used before): importing it costs ~80 ms of CPU on every run, and its
// internal timers kept the process alive ~100 ms after the last request was closed. A CLI makes one
// burst of plain JSON POSTs to one origin; node's own agent does that with keep-alive and costs
// ~3 ms to load (node:https, with TLS, is loaded only for https:// URLs).
import type { Agent as HttpAgent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import http from 'node:http';
import { createRequire } from 'node:module';
import { ApiError } from '../errors.js';
import { redactText } from './redact.js';

export interface Exchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface SendOptions {
  path: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  rpc: string;
  requestId: string;
}

/** At most this many connections to one origin (the apply's parallelism never needs more). */
const MAX_SOCKETS = 64;

interface Protocol {
  request(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest;
  Agent: new (options: { keepAlive: boolean; maxSockets: number; keepAliveMsecs: number }) => HttpAgent;
}

/** A failure of ours (not node's), carrying a code transportError() understands. */
function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

export class Transport {
  private readonly url: URL;
  private agent: Promise<{ protocol: Protocol; agent: HttpAgent }> | undefined;
  /** Requests in flight, so that close() can wait for them and destroy() can end them. */
  private readonly inFlight = new Map<ClientRequest, (error: Error) => void>();
  private readonly settled = new Set<Promise<unknown>>();
  private closed = false;

  /** `urlSource`: where the URL came from (`AGENTFORM_URL_PRODUCTION`), named when it cannot be reached. */
  constructor(readonly origin: string, private readonly urlSource = '--url or AGENTFORM_URL') {
    this.url = new URL(origin);
  }

  private connection(): Promise<{ protocol: Protocol; agent: HttpAgent }> {
    // https (and TLS under it) is loaded only for an https URL. require, not import(): the bundle's
    // chunks are compiled through vm.Script for their code cache, where import() has no loader.
    this.agent ??= Promise.resolve().then(() => {
      const protocol = this.url.protocol === 'https:' ? (createRequire(import.meta.url)('node:https') as Protocol) : (http as unknown as Protocol);
      return { protocol, agent: new protocol.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, keepAliveMsecs: 10_000 }) };
    });
    return this.agent;
  }

  async send(options: SendOptions): Promise<Exchange> {
    if (this.closed) throw transportError(codedError('CLIENT_CLOSED', 'the client was closed'), this.origin, this.urlSource, options);
    const { protocol, agent } = await this.connection();
    const exchange = this.exchange(protocol, agent, options);
    const done = exchange.then(
      () => undefined,
      () => undefined,
    );
    this.settled.add(done);
    void done.then(() => this.settled.delete(done));
    try {
      return await exchange;
    } catch (error) {
      throw transportError(error, this.origin, this.urlSource, options);
    }
  }

  private exchange(protocol: Protocol, agent: HttpAgent, options: SendOptions): Promise<Exchange> {
    return new Promise<Exchange>((resolve, reject) => {
      const headers = options.body === undefined ? { ...options.headers } : headerList(options.headers, options.body, this.url.host);
      let finished = false;
      // Replaced by the response's own once it arrives.
      let detach = (): void => {
        request.off('error', onRequestError).on('error', ignoreLateError);
      };
      const finish = (error: Error | undefined, exchange?: Exchange) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        this.inFlight.delete(request);
        detach();
        if (error) {
          request.destroy();
          reject(error);
        } else {
          resolve(exchange!);
        }
      };
      const onRequestError = (error: Error) => finish(error);
      const request = protocol.request(
        { protocol: this.url.protocol, hostname: this.url.hostname.replace(/^\[|\]$/g, ''), port: this.url.port || undefined, path: options.path, method: 'POST', headers, agent },
        (response) => {
          // Decoded as each chunk arrives (a decoder keeps a character split between chunks), so
          // the socket's buffers die young. Kept until the end, a list's chunks (1.3 MB for 1,000
          // agents) outlived a couple of young-generation collections and sat in the old space
          // beside a copy of them all (Buffer.concat) until the next full collection.
          response.setEncoding('utf8');
          let text = '';
          const onData = (chunk: string) => {
            text += chunk;
          };
          const onError = (error: Error) => finish(error);
          // A response cut short (the connection closed mid-body) ends with 'aborted'/'close', not 'end'.
          const onClose = () => {
            if (!response.complete) finish(codedError('ECONNRESET', 'the connection closed in the middle of the answer'));
          };
          const onEnd = () => finish(undefined, { status: response.statusCode ?? 0, headers: response.headers, text });
          response.on('data', onData).on('error', onError).on('close', onClose).on('end', onEnd);
          const detachRequest = detach;
          detach = () => {
            response.off('data', onData).off('error', onError).off('close', onClose).off('end', onEnd).on('error', ignoreLateError);
            detachRequest();
          };
        },
      );
      // The limit covers the whole exchange, body included; node's own socket timeout would only
      // cover idle time.
      const timer = setTimeout(() => finish(codedError('CLIENT_TIMEOUT', `no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
      this.inFlight.set(request, (error) => finish(error));
      request.on('error', onRequestError);
      request.end(options.body);
    });
  }

  /** Waits for the requests in flight, then closes the connections. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.settled]);
    if (this.agent) (await this.agent).agent.destroy();
  }

  /** Ends everything now: requests in flight fail instead of being waited for. */
  async destroy(): Promise<void> {
    this.closed = true;
    for (const fail of [...this.inFlight.values()]) fail(codedError('CLIENT_DESTROYED', 'the client was closed'));
    if (this.agent) (await this.agent).agent.destroy();
  }
}

/**
 * Listens for an error that comes after an exchange settled (an 'error' event nobody listens to
 * would end the process), in place of the exchange's own listeners, which finish() removes: node
 * can keep a request and its response reachable well after the answer (the last read's response
 * stayed reachable from the stack for the whole plan that followed it), and through those
 * listeners' closures the promise, hence the whole answer text, stayed with it: 6.6 MB for a list
 * of 5,000 agents. Declared here, not in exchange(), so that it holds on to nothing.
 */
function ignoreLateError(): void {}

/**
 * The headers of a request with a body as a flat [name, value, ...] list, in the order node sends
 * the object form (ours, the length, then Host; node adds Connection): node turns the list into the
 * header block at once (names and values still checked), where the object form kept a table of
 * every header per request beside the block, and an apply makes thousands of requests. Without a
 * body the object form stays: node then adds `Content-Length: 0` itself.
 */
function headerList(headers: Record<string, string>, body: string, host: string): string[] {
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name]!);
  list.push('content-length', String(Buffer.byteLength(body)), 'Host', host);
  return list;
}

/** The transport failure codes a retry may help with: the request may or may not have taken effect. */
export const UNCERTAIN_TRANSPORT_CODES = new Set(['connection_reset', 'timeout']);

function transportError(error: unknown, origin: string, urlSource: string, options: SendOptions): ApiError {
  const cause = error as { code?: string | number; name?: string; message?: string; cause?: { code?: string } };
  const code = String(cause.code ?? cause.cause?.code ?? '');
  const make = (transportCode: string, message: string) =>
    new ApiError(options.rpc, 0, transportCode, redactText(message), undefined, options.requestId);
  if (code === 'ECONNREFUSED') {
    return make('connection_refused', `could not connect to ${origin}: connection refused. Is the Control API running there? Check ${urlSource}.`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return make('dns', `could not resolve the host of ${origin} (${code}). Check the URL and the machine's DNS.`);
  }
  if (code === 'CLIENT_TIMEOUT' || code === 'ETIMEDOUT') {
    return make('timeout', `no answer from ${origin} within ${options.timeoutMs} ms`);
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return make('connection_reset', `the connection to ${origin} closed before an answer arrived`);
  }
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) {
    return make('tls', `TLS with ${origin} failed (${code}). Check the server's certificate; agentform never turns certificate checks off.`);
  }
  return make('network', `request to ${origin} failed: ${cause.message || code || String(error)}`);
}
