// One HTTP exchange with the Control API over undici (a keep-alive pool per base URL). Failures to
// reach the server become ApiErrors with status 0 and a transport code that says what to check.
import { Pool } from 'undici';
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

export class Transport {
  private readonly pool: Pool;
  /** `urlSource`: where the URL came from (`AGENTFORM_URL_PRODUCTION`), named when it cannot be reached. */
  constructor(readonly origin: string, private readonly urlSource = '--url or AGENTFORM_URL') {
    this.pool = new Pool(origin, { connections: 64, pipelining: 1, keepAliveTimeout: 10_000 });
  }

  async send(options: SendOptions): Promise<Exchange> {
    try {
      const response = await this.pool.request({
        path: options.path,
        method: 'POST',
        headers: options.headers,
        body: options.body ?? null,
        // undici's own timers are coarse (about a second); a signal keeps short timeouts exact and
        // covers the whole exchange, body included.
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const text = await response.body.text();
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      throw transportError(error, this.origin, this.urlSource, options);
    }
  }

  async close(): Promise<void> {
    if (!this.pool.destroyed) await this.pool.close();
  }

  /** Ends the pool now: requests in flight fail instead of being waited for. */
  async destroy(): Promise<void> {
    if (!this.pool.destroyed) await this.pool.destroy();
  }
}

/** The transport failure codes a retry may help with: the request may or may not have taken effect. */
export const UNCERTAIN_TRANSPORT_CODES = new Set(['connection_reset', 'timeout']);

function transportError(error: unknown, origin: string, urlSource: string, options: SendOptions): ApiError {
  const cause = error as { code?: string | number; name?: string; message?: string; cause?: { code?: string } };
  const code = cause.name === 'TimeoutError' || cause.name === 'AbortError' ? 'UND_ERR_HEADERS_TIMEOUT' : String(cause.code ?? cause.cause?.code ?? '');
  const make = (transportCode: string, message: string) =>
    new ApiError(options.rpc, 0, transportCode, redactText(message), undefined, options.requestId);
  if (code === 'ECONNREFUSED') {
    return make('connection_refused', `could not connect to ${origin}: connection refused. Is the Control API running there? Check ${urlSource}.`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return make('dns', `could not resolve the host of ${origin} (${code}). Check the URL and the machine's DNS.`);
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return make('timeout', `no answer from ${origin} within ${options.timeoutMs} ms`);
  }
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED') {
    return make('connection_reset', `the connection to ${origin} closed before an answer arrived`);
  }
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) {
    return make('tls', `TLS with ${origin} failed (${code}). Check the server's certificate; agentform never turns certificate checks off.`);
  }
  return make('network', `request to ${origin} failed: ${code || cause.message || String(error)}`);
}
