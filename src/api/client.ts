// The typed Control API client: the only code on the CLI side that calls the API.
// `call(rpc, request)` is typed by the operation table; `client.ops.agentsUpsert(...)` and friends
// are one method per operation, derived from the same table so they can never drift from it.
import { ApiError, UserError } from '../errors.js';
import { ANSWER_SHAPES, shapeMismatch } from './answer-shape.js';
import { isLoopbackHost } from './credentials.js';
import {
  OPERATIONS,
  REPLACES_KEY_HEADER,
  RPC_NAMES,
  operationPath,
  type CallOptions,
  type RequestOf,
  type ResponseOf,
  type Rpc,
  type RpcCaller,
} from './operations.js';
import { redact, redactText, secretValuesIn } from './redact.js';
import { proxyFor } from './proxy.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './request-timeout.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './response-limit.js';
import { newRequestId } from './request-id.js';
import { DEFAULT_RETRY_POLICY, isRetryableStatus, isThrottlingStatus, parseRetryAfter, retryDelayMs, type RetryPolicy } from './retry.js';
import type { ThrottleTally } from './throttling.js';
import { NOT_SENT_TRANSPORT_CODES, RETRYABLE_TRANSPORT_CODES, Transport, type Exchange } from './transport.js';
import { monotonicMs } from '../util/clock.js';
import type { Variables } from '../util/variables.js';

export type Credential = { kind: 'key'; token: string } | { kind: 'cookie'; cookie: string; organization?: string; environment?: string };

export interface RequestEvent {
  rpc: Rpc;
  attempt: number;
  status: number;
  ms: number;
}

export interface ClientOptions {
  baseUrl: string;
  credential: Credential;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  /** The largest answer body accepted (default 64 MiB; AGENTFORM_MAX_RESPONSE_BYTES in the CLI). */
  maxResponseBytes?: number;
  /** Receives trace lines with every secret redacted. */
  debug?: (line: string) => void;
  insecureHttp?: boolean;
  /** Where baseUrl came from, for messages (`AGENTFORM_URL_STAGING`); default "--url or AGENTFORM_URL". */
  urlSource?: string;
  /** The environment HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read from (proxy.ts); without it, connections are direct. */
  proxyVariables?: Variables;
  /** Called once per HTTP attempt (request counting in tests and benchmarks). */
  onRequest?: (event: RequestEvent) => void;
  /** For tests: the sleep between attempts. */
  sleep?: (ms: number) => Promise<void>;
  /** Where attempts, throttled answers and the waits after them are counted (the run's closing line). */
  throttling?: ThrottleTally;
}

type CamelTail<S extends string> = S extends `${infer Head}.${infer Rest}` ? `${Capitalize<Head>}${CamelTail<Rest>}` : Capitalize<S>;
type MethodName<R extends string> = R extends `${infer Head}.${infer Rest}` ? `${Head}${CamelTail<Rest>}` : R;
/** Operations whose request has no required field take it optionally: `client.providersList()`. */
type OperationMethod<R extends Rpc> =
  Record<string, never> extends RequestOf<R>
    ? (request?: RequestOf<R>) => Promise<ResponseOf<R>>
    : undefined extends RequestOf<R>
      ? (request?: RequestOf<R>) => Promise<ResponseOf<R>>
      : (request: RequestOf<R>) => Promise<ResponseOf<R>>;
/** `agents.upsert` → `agentsUpsert`, `connections.grants.import` → `connectionsGrantsImport`. */
export type OperationMethods = {
  [R in Rpc as MethodName<R>]: OperationMethod<R>;
};

/** Operations sent without a body (control-api.md: organizations.get has "no body"). */
const BODYLESS: ReadonlySet<Rpc> = new Set<Rpc>(['organizations.get']);

export function methodNameOf(rpc: Rpc): string {
  const [head, ...rest] = rpc.split('.');
  return head + rest.map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
}

const STATUS_CODES: Record<number, string> = {
  400: 'invalid_argument',
  401: 'unauthenticated',
  403: 'permission_denied',
  404: 'not_found',
  409: 'failed_precondition',
  413: 'invalid_argument',
  429: 'resource_exhausted',
  500: 'internal',
  502: 'unavailable',
  503: 'unavailable',
  504: 'unavailable',
};

function validateBaseUrl(baseUrl: string, insecureHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UserError(`the Control API URL is not a URL: ${redactText(baseUrl)}`, 'expected e.g. https://control.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UserError(`the Control API URL must be http:// or https://, not ${url.protocol}`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !insecureHttp) {
    throw new UserError(
      `refusing plain http:// to ${url.host}: the API key would cross the network unencrypted`,
      'use https://, or pass --insecure-http if you really mean it',
    );
  }
  return url;
}

// Declaration merging gives the class one typed method per operation (`client.agentsUpsert(...)`);
// the constructor installs them from the operation table.
export interface ControlApiClient extends OperationMethods {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor installs the methods the interface declares
export class ControlApiClient implements RpcCaller {
  /** The same methods as on the client itself, as one object (handy to pass around). */
  readonly ops: OperationMethods;
  private readonly transport: Transport;
  private readonly basePath: string;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly throttling: ThrottleTally | undefined;
  /** Set by cancel(): no new attempt starts and a pending retry wait ends at once. */
  private readonly cancelled = new AbortController();

  constructor(private readonly options: ClientOptions) {
    const url = validateBaseUrl(options.baseUrl, options.insecureHttp === true);
    const proxy = options.proxyVariables ? proxyFor(url, options.proxyVariables) : undefined;
    this.transport = new Transport(url.origin, options.urlSource, proxy);
    if (proxy) this.trace(`connecting to ${url.origin} through the proxy ${proxy.label} (${proxy.source})`);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.throttling = options.throttling;
    const methods: Record<string, (request: unknown) => Promise<unknown>> = {};
    for (const rpc of RPC_NAMES) {
      methods[methodNameOf(rpc)] = (request) => this.call(rpc, (request ?? (BODYLESS.has(rpc) ? undefined : {})) as never);
    }
    this.ops = methods as unknown as OperationMethods;
    Object.assign(this, methods);
  }

  async call<R extends Rpc>(rpc: R, request: RequestOf<R>, options: CallOptions<R> = {}): Promise<ResponseOf<R>> {
    const started = Date.now();
    let waitedMs = 0;
    let counted = 0;
    for (let attempt = 1; ; attempt += 1) {
      if (this.cancelled.signal.aborted) throw new ApiError(rpc, 0, 'cancelled', 'the request was cancelled: its answer is no longer needed');
      try {
        this.throttling?.request();
        return await this.attempt(rpc, request, attempt, options.replacesKeyId);
      } catch (error) {
        if (!(error instanceof ApiError) || !isRetryable(error)) throw error;
        const throttled = isThrottlingStatus(error.status);
        if (throttled) this.throttling?.throttled();
        if (!throttled || this.policy.countThrottled) counted += 1;
        // The waits count in full, also when a test's sleep returns at once.
        const left = this.policy.maxTotalMs - Math.max(Date.now() - started, waitedMs);
        const retryAfter = throttled ? (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds : undefined;
        const delay = retryDelayMs(attempt, this.policy, retryAfter);
        // A retry-after that ends past the budget is not cut short: asked to wait, the client does not come back early.
        if (counted >= this.policy.maxAttempts || left <= 0 || (retryAfter !== undefined && retryAfter * 1000 > left)) {
          if (throttled) this.throttling?.gaveUp();
          throw error;
        }
        // Known not to have been sent (a proxy that could not open its tunnel): nothing to look for.
        const unsent = error.status === 0 && NOT_SENT_TRANSPORT_CODES.has(error.code);
        if (OPERATIONS[rpc].retry === 'create' && !unsent) {
          // The first attempt may have taken effect with its answer lost: look before creating again.
          const existing = await this.findCreated(rpc, request, started);
          if (existing !== undefined) return existing as ResponseOf<R>;
        }
        if (options.beforeRetry && !unsent) {
          const applied = await this.checkApplied(rpc, options.beforeRetry);
          if (applied !== undefined) {
            this.trace(`  ${rpc}: the lost attempt had taken effect; not sending it again`);
            return applied;
          }
        }
        const wait = Math.min(delay, left);
        const bound =
          throttled && !this.policy.countThrottled
            ? `${Math.ceil(left / 1000)} s of the retry budget left`
            : `attempt ${attempt + 1} of ${this.policy.maxAttempts}`;
        this.trace(`  retrying ${rpc} in ${wait} ms (${bound}) after ${error.code}`);
        if (throttled) this.throttling?.waited(wait);
        waitedMs += wait;
        await this.waitUnlessCancelled(wait);
      }
    }
  }

  private async waitUnlessCancelled(ms: number): Promise<void> {
    const signal = this.cancelled.signal;
    if (signal.aborted) return;
    let onAbort: (() => void) | undefined;
    const cancelled = new Promise<void>((resolve) => signal.addEventListener('abort', (onAbort = () => resolve()), { once: true }));
    try {
      await Promise.race([this.sleep(ms), cancelled]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Tops the open connections up to `count` (those already open count) ahead of that many requests
   * sent at once (an apply's first writes), while the caller still has other work to do: their TCP
   * and TLS handshakes are then out of the way, and a server that accepts one connection per turn
   * of its event loop (as any Node.js server does) has accepted them all by the time the requests come.
   */
  preconnect(count: number): void {
    const opened = this.transport.preconnect(count);
    if (opened > 0) this.trace(`topping the connections up to ${count} ahead of the writes: opened ${opened}`);
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /**
   * Gives up on every request: those in flight fail at once, retries stop, nothing new is sent.
   * For reads started ahead whose answers turned out not to be needed (an invalid configuration).
   */
  async cancel(): Promise<void> {
    this.cancelled.abort();
    await this.transport.destroy();
  }

  private headers(requestId: string, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { 'x-request-id': requestId, accept: 'application/json' };
    if (hasBody) headers['content-type'] = 'application/json';
    const { credential } = this.options;
    if (credential.kind === 'key') {
      headers.authorization = `Bearer ${credential.token}`;
    } else {
      headers.cookie = credential.cookie;
      if (credential.organization) headers['x-svc-organization'] = credential.organization;
      if (credential.environment) headers['x-svc-environment'] = credential.environment;
    }
    return headers;
  }

  private async attempt<R extends Rpc>(rpc: R, request: RequestOf<R>, attempt: number, replacesKeyId?: string): Promise<ResponseOf<R>> {
    const requestId = newRequestId();
    const path = `${this.basePath}${operationPath(rpc)}`;
    const body = BODYLESS.has(rpc) ? undefined : JSON.stringify(request ?? {});
    // What to mask in a trace or an error message: gathered only when one is written (walking the
    // request for secret fields on every call cost a visible share of an apply's CPU).
    let secretsFound: string[] | undefined;
    const secrets = (): string[] => (secretsFound ??= [...secretValuesIn(request), ...this.credentialSecrets()]);
    const headers = this.headers(requestId, body !== undefined);
    if (replacesKeyId !== undefined) headers[REPLACES_KEY_HEADER] = replacesKeyId;
    if (this.options.debug) {
      this.trace(`→ POST ${path} (${rpc}, attempt ${attempt}, request ${requestId})`);
      this.trace(`  headers ${JSON.stringify(redact(headers, secrets()))}`);
      if (body !== undefined) this.trace(`  body ${JSON.stringify(redact(request, secrets()))}`);
    }
    const startedAt = monotonicMs();
    let exchange: Exchange;
    try {
      exchange = await this.transport.send({ path, headers, body, timeoutMs: this.timeoutMs, maxResponseBytes: this.maxResponseBytes, rpc, requestId });
    } catch (error) {
      const ms = Math.round(monotonicMs() - startedAt);
      this.options.onRequest?.({ rpc, attempt, status: 0, ms });
      this.trace(`← ${rpc} failed after ${ms} ms: ${error instanceof ApiError ? `${error.code}: ${error.message}` : String(error)}`);
      throw error;
    }
    const ms = Math.round(monotonicMs() - startedAt);
    this.options.onRequest?.({ rpc, attempt, status: exchange.status, ms });
    if (this.options.debug) this.trace(`← ${exchange.status} ${path} in ${ms} ms ${redactedBody(exchange.text, secrets())}`);
    if (exchange.status >= 200 && exchange.status < 300) return answerOf(rpc, exchange, requestId);
    throw errorFromExchange(rpc, exchange, requestId, secrets());
  }

  private async findCreated(rpc: Rpc, request: unknown, startedAt: number): Promise<unknown> {
    const body = request as Record<string, unknown>;
    try {
      switch (rpc) {
        case 'connections.create':
          return (await this.call('connections.list', {})).find((item) => item.name === body.name);
        case 'providers.create':
          return (await this.call('providers.list', {})).find((item) => item.name === body.name);
        case 'secrets.create':
          return (await this.call('secrets.list', {})).find((item) => item.name === body.name);
        case 'environments.create':
          return (await this.call('environments.list', {})).find((item) => item.slug === body.slug);
        case 'apiKeys.create': {
          const name = (body.key as { name?: string } | undefined)?.name;
          // Keys of the same name may exist from before; only one created since this call began counts.
          const created = (await this.call('apiKeys.list', {})).find(
            (key) => key.name === name && !key.revokedAt && key.createdAt !== undefined && Date.parse(key.createdAt) >= startedAt - 5_000,
          );
          if (created) {
            throw new ApiError(
              rpc,
              0,
              'token_lost',
              `key ${name} was created (id ${created.id}) but the answer carrying its token was lost; revoke it (agentform keys revoke ${created.id}) and run again`,
              { keyId: created.id },
            );
          }
          return undefined;
        }
        default:
          return undefined;
      }
    } catch (error) {
      if (error instanceof ApiError && error.code === 'token_lost') throw error;
      // Could not look: creating again could duplicate, so give up with the original situation.
      throw unknownOutcome(rpc, error);
    }
  }

  /** Runs a caller's `beforeRetry` check; when the check itself fails, the outcome stays unknown. */
  private async checkApplied<R extends Rpc>(rpc: R, check: () => Promise<ResponseOf<R> | undefined>): Promise<ResponseOf<R> | undefined> {
    try {
      return await check();
    } catch (error) {
      throw unknownOutcome(rpc, error);
    }
  }

  /** The credential's own secret parts, masked wherever they might be echoed back. */
  private credentialSecrets(): string[] {
    const { credential } = this.options;
    return credential.kind === 'key' ? [credential.token] : [credential.cookie];
  }

  private trace(line: string): void {
    this.options.debug?.(line);
  }
}

/**
 * A 2xx answer's body, parsed and checked against what the client relies on (answer-shape.ts): a
 * body that is not JSON, or JSON of another shape, is the server's fault, named as such.
 */
function answerOf<R extends Rpc>(rpc: R, exchange: Exchange, requestId: string): ResponseOf<R> {
  const shape = ANSWER_SHAPES[rpc];
  const malformed = (why: string) =>
    new ApiError(rpc, exchange.status, 'invalid_response', `the server's answer to ${rpc} is malformed: ${why}`, undefined, requestId);
  if (exchange.text.trim() === '') {
    if (shape === 'any') return undefined as ResponseOf<R>;
    throw malformed('the body is empty');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(exchange.text);
  } catch {
    throw malformed(`the body is not JSON (HTTP ${exchange.status})`);
  }
  const mismatch = shapeMismatch(parsed, shape);
  if (mismatch !== undefined) throw malformed(mismatch);
  return parsed as ResponseOf<R>;
}

/** A response body for the debug trace: JSON with secret fields masked, else redacted text; cut at 4000 chars. */
function redactedBody(text: string, secrets: readonly string[]): string {
  let shown: string;
  try {
    shown = JSON.stringify(redact(JSON.parse(text), secrets));
  } catch {
    shown = redactText(text, secrets);
  }
  return shown.length > 4000 ? `${shown.slice(0, 4000)}… (${shown.length} chars)` : shown;
}

function unknownOutcome(rpc: Rpc, cause: unknown): ApiError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new ApiError(
    rpc,
    0,
    'unknown_outcome',
    `${rpc} may or may not have taken effect, and checking failed: ${why}. Run again: the plan will show what exists.`,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The message of a JSON error body in another common shape: `{"message"}`, `{"error": "…"}`,
 * OAuth's `{"error", "error_description"}`, problem+json's `{"title", "detail"}`, a JSON string.
 */
function messageOutsideEnvelope(parsed: unknown): string | undefined {
  if (typeof parsed === 'string') return parsed.trim() || undefined;
  if (!isRecord(parsed)) return undefined;
  for (const field of ['error_description', 'message', 'detail', 'error', 'title']) {
    const value = parsed[field];
    if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, 200);
  }
  return undefined;
}

function isRetryable(error: ApiError): boolean {
  return isRetryableStatus(error.status) || (error.status === 0 && RETRYABLE_TRANSPORT_CODES.has(error.code));
}

function errorFromExchange(rpc: Rpc, exchange: Exchange, requestId: string, secrets: string[]): ApiError {
  const retryAfterHeader = exchange.headers['retry-after'];
  const retryAfterSeconds = parseRetryAfter(Array.isArray(retryAfterHeader) ? retryAfterHeader[0] : retryAfterHeader);
  let code = STATUS_CODES[exchange.status] ?? (exchange.status >= 500 ? 'internal' : 'unknown');
  let message = `HTTP ${exchange.status}`;
  let details: unknown;
  const snippet = exchange.text.trim().slice(0, 200);
  let parsed: unknown;
  try {
    parsed = JSON.parse(exchange.text);
  } catch {
    parsed = undefined;
  }
  const envelope = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
  if (envelope) {
    if (typeof envelope.code === 'string') code = envelope.code;
    if (typeof envelope.message === 'string') message = envelope.message;
    details = envelope.details === undefined ? undefined : redact(envelope.details, secrets);
  } else if (snippet) {
    // Not the assumed envelope (a gateway, a proxy, another server): keep what the server said.
    message = `HTTP ${exchange.status}: ${messageOutsideEnvelope(parsed) ?? snippet}`;
  }
  if (code === 'unimplemented' || (exchange.status === 404 && code === 'not_found' && message.startsWith('HTTP'))) {
    code = 'unimplemented';
    const assumed = OPERATIONS[rpc].status === 'assumed';
    message = `the server does not offer ${rpc}${assumed ? ' (an operation this project assumes exists; see "Assumptions about the API" in README)' : ''}`;
  }
  const withRetry = retryAfterSeconds === undefined ? details : { ...(details as object | undefined), retryAfterSeconds };
  return new ApiError(rpc, exchange.status, code, redactText(message, secrets), withRetry, requestId);
}
