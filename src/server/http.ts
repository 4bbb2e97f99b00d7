// The HTTP face of the local control plane, written against http-port.ts (either server keeps it:
// http-factory.ts). `POST /v1/<group>/<op>` runs an operation:
// auth → scope → content type → body (limit, request-body.ts) → faults → schema → handler →
// commit → the answer, which also waits for the injected latency, if any, counted from the read.
// The credential is checked before the body is read (the server holds at most a buffer of it
// meanwhile), so an unauthenticated caller cannot make the server read on, decode or parse anything.
// `/dev/...` holds dev-only helpers (cookies, the session simulator), off unless the server was
// started with them, never fault-injected.
import type { Server } from 'node:http';
import { isRpc, OPERATIONS, REPLACES_KEY_HEADER, type Rpc } from '../api/operations.js';
import { callAgentTool, parseToolCallRequest } from './tool-calls.js';
import { authenticate, mintSessionCookie, requireScope, SESSION_COOKIE } from './auth.js';
import type { HandlerContext, ServerServices } from './context.js';
import { environmentOf } from './context.js';
import type { FaultInjector } from './faults.js';
import { HANDLERS } from './handlers/index.js';
import type { Handler } from './handlers/types.js';
import { toDelivery, type DeliveryRow } from './hooks/queue.js';
import { parseSimulateRequest, simulateSession } from './simulator.js';
import type { ServerProfile } from './profiles.js';
import type { Db } from './store/db.js';
import { committed } from './store/group-commit.js';
import { createHttpServer } from './http-factory.js';
import { BodyTooLarge, type HttpRequest, type HttpResponse, type RequestHandler } from './http-port.js';
import { LARGE_ANSWERS_AT_ONCE, mayAnswerLarge, TurnGate } from './list-gate.js';
import { hasNoBody, isJsonContentType, parseRequestBody } from './request-body.js';
import { ServiceError } from './service-error.js';
import { yieldToEventLoop } from './util.js';
import { validateRequest } from './validate.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * How long a client may take to send its headers, and its whole request, before the server answers
 * 408 and closes; and how long a connection may sit idle between requests (node's default, 5 s).
 */
export interface ServerTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

/**
 * Connections open at once; one more is answered 503 with `retry-after: 1` (http-port.ts). An
 * apply opens at most 64 to one server (src/api/transport.ts), so this leaves room for a few at once.
 */
export const DEFAULT_MAX_CONNECTIONS = 256;

export interface HttpServerOptions {
  db: Db;
  services: ServerServices;
  faults: FaultInjector;
  profile: ServerProfile;
  /** Called with unexpected (non-ServiceError) failures; never with request bodies or credentials. */
  onInternalError?: (error: unknown) => void;
  /** Default DEFAULT_SERVER_TIMEOUTS; tests shorten them. */
  timeouts?: Partial<ServerTimeouts>;
  /** Serve /dev/ (default off: 404). */
  devEndpoints?: boolean;
  /** /dev/tools/call refuses what the agent's tool policy denies (tool-calls.ts). */
  enforceToolPolicy?: boolean;
  /** Default DEFAULT_MAX_CONNECTIONS. */
  maxConnections?: number;
  /** Decides the server (http-factory.ts); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The body, read only once the caller is known. It must be declared `application/json`; a read
 * operation may also come with no body and no content type at all (organizations.get).
 */
async function readJsonBody(req: HttpRequest, bodylessAllowed: boolean): Promise<unknown> {
  if (!isJsonContentType(req.headers) && !(bodylessAllowed && req.headers['content-type'] === undefined && hasNoBody(req.headers))) {
    throw new ServiceError('unsupported_media_type', 'the request body must be JSON sent with content-type: application/json');
  }
  return parseRequestBody(await req.body());
}

/**
 * A large array is serialised and written per slice of elements, yielding between slices, so
 * one large list (1,000 agents, ~1 MB) does not hold up the small requests that arrive meanwhile.
 */
const SERIALISE_SLICE = 100;

async function serialiseParts(body: unknown): Promise<string[]> {
  if (!Array.isArray(body) || body.length <= SERIALISE_SLICE) return [JSON.stringify(body)];
  const parts: string[] = ['['];
  for (let start = 0; start < body.length; start += SERIALISE_SLICE) {
    if (start > 0) await yieldToEventLoop();
    const slice = JSON.stringify(body.slice(start, start + SERIALISE_SLICE)).slice(1, -1);
    parts.push(start > 0 ? `,${slice}` : slice);
  }
  parts.push(']');
  return parts;
}

/** Writes an answer made by serialiseParts (yielding between the parts of a large one). */
async function sendJsonParts(res: HttpResponse, parts: string[]): Promise<void> {
  const length = parts.reduce((sum, part) => sum + Buffer.byteLength(part), 0);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': length });
  for (let i = 0; i < parts.length - 1; i++) {
    res.write(parts[i]);
    if (parts.length > 2) await yieldToEventLoop();
  }
  res.end(parts[parts.length - 1]);
}

function sendJson(res: HttpResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: HttpResponse, error: ServiceError, headers: Record<string, string> = {}): void {
  const body: { code: string; message: string; details?: unknown } = { code: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  sendJson(res, error.status, { error: body }, headers);
}

/** Maps storage failures that a client can act on; anything else is an internal error. */
function asServiceError(error: unknown): ServiceError | undefined {
  if (error instanceof ServiceError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return new ServiceError('already_exists', 'the object already exists');
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return new ServiceError('unavailable', 'the store is busy; retry');
  return undefined;
}

const PLAIN_PATH = /^\/[A-Za-z0-9][A-Za-z0-9/]*$/;

/**
 * The path of a request-target, as URL resolves it (dot segments, a query, a fragment). A target of
 * letters, digits and slashes (every operation's) is its own path: no URL to build per request.
 */
export function pathOfTarget(target: string): string {
  if (PLAIN_PATH.test(target)) return target;
  try {
    return new URL(target, 'http://local').pathname;
  } catch {
    throw new ServiceError('invalid_argument', `the request target ${JSON.stringify(target.slice(0, 80))} is not a path`);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createControlPlaneServer(options: HttpServerOptions): Server {
  const { db, services, faults, profile } = options;

  async function runOperation(req: HttpRequest, res: HttpResponse, rpc: Rpc): Promise<void> {
    const tenancy = authenticate(db, req.headers);
    requireScope(tenancy, OPERATIONS[rpc].scope, rpc);
    const body = await readJsonBody(req, OPERATIONS[rpc].scope === 'read');
    const fault = faults.next(rpc);
    // The injected latency runs from the moment the request is read, while the operation acts
    // (faults that refuse it act on nothing); the answer leaves once both are done. So a request
    // waits max(latency, the server's own work), as from a remote service whose work hides
    // behind the network's delay, and the latency measures the client, not this server's SQLite
    // and fsync. Waited first and acted after, the 16 requests of an apply round (kept in step by
    // the 1 ms timer clock) acted one after the other when their timers fired together, each answer
    // held up by the others' work. A bare Node client at 16 in flight, 20 ms, 2 cores: 23.6 ms a
    // round (act after the wait), 22.3 ms (act, then wait the whole latency), 21.1 ms (this); a
    // server that does nothing, 21.0 ms.
    const delay = fault.delayMs > 0 ? sleep(fault.delayMs) : undefined;
    // With a delay, the operation acts once the requests that arrived with it are read too, so
    // that their delays start as they arrive rather than after each other's work.
    if (delay) await yieldToEventLoop();
    const replaces = req.headers[REPLACES_KEY_HEADER];
    const acting =
      fault.fail || fault.throttle
        ? undefined
        : act(rpc, { db, tenancy, services, profile, ...(typeof replaces === 'string' ? { replacesKeyId: replaces } : {}) }, body);
    // Its failure is answered after the delay (awaited below), not reported as unhandled meanwhile.
    acting?.catch(() => undefined);
    await delay;
    if (fault.fail) throw new ServiceError('unavailable', 'injected fault: the service is unavailable; retry');
    if (fault.throttle) {
      sendError(res, new ServiceError('resource_exhausted', 'injected fault: too many requests; retry'), { 'retry-after': '0' });
      return;
    }
    const answer = await (acting as Promise<string[] | undefined>);
    if (fault.loseResponse) {
      // The operation took effect; the caller never hears so (a lost response).
      res.destroy();
      return;
    }
    if (answer === undefined) {
      res.writeHead(204);
      res.end();
    } else await sendJsonParts(res, answer);
  }

  const largeAnswers = new TurnGate(LARGE_ANSWERS_AT_ONCE);
  /** Runs `work` in its turn if `rpc` may answer large (list-gate.ts), else at once. */
  const inTurn = <T>(rpc: Rpc, work: () => Promise<T>): Promise<T> => (mayAnswerLarge(rpc) ? largeAnswers.run(work) : work());

  /** Runs the operation and makes its answer (undefined: 204), once what it did is committed. */
  async function act(rpc: Rpc, ctx: HandlerContext, body: unknown): Promise<string[] | undefined> {
    validateRequest(rpc, body);
    const result = await inTurn(rpc, async () => (HANDLERS[rpc] as Handler<Rpc>)(ctx, body as never));
    // No answer before what it reports (or read) is on disk (group commit, store/group-commit.ts).
    await committed(db);
    return result === undefined ? undefined : inTurn(rpc, () => serialiseParts(profile.present(rpc, result)));
  }

  async function runDev(req: HttpRequest, res: HttpResponse, path: string): Promise<void> {
    const tenancy = authenticate(db, req.headers);
    const body = await readJsonBody(req, false);
    const ctx: HandlerContext = { db, tenancy, services, profile };
    switch (path) {
      case '/dev/cookie': {
        requireScope(tenancy, 'control', 'minting a session cookie');
        const { value, expiresAt } = mintSessionCookie(db, tenancy);
        await committed(db);
        const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000));
        sendJson(
          res,
          200,
          { cookie: `${SESSION_COOKIE}=${value}`, expiresAt },
          { 'set-cookie': `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}` },
        );
        return;
      }
      case '/dev/sessions/simulate': {
        const simulated = simulateSession(ctx, parseSimulateRequest(body));
        await committed(db);
        sendJson(res, 200, simulated);
        return;
      }
      case '/dev/tools/call': {
        const request = parseToolCallRequest(body);
        const result = await callAgentTool(ctx, request, options.enforceToolPolicy === true, services.callTool);
        await committed(db);
        sendJson(res, 200, result);
        return;
      }
      case '/dev/hooks/deliveries': {
        requireScope(tenancy, 'read', 'listing hook deliveries');
        const rows = db
          .prepare('SELECT * FROM hook_deliveries WHERE environment_id = ? ORDER BY created_at, event_seq, id')
          .all(environmentOf(ctx)) as DeliveryRow[];
        await committed(db);
        sendJson(res, 200, rows.map(toDelivery));
        return;
      }
      default:
        throw new ServiceError('not_found', `no dev endpoint ${path}`);
    }
  }

  const timeouts = { ...DEFAULT_SERVER_TIMEOUTS, ...options.timeouts };
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const onRequest: RequestHandler = (req, res) => {
    const handle = async (): Promise<void> => {
      const path = pathOfTarget(req.url);
      if (req.method !== 'POST') throw new ServiceError('method_not_allowed', `${req.method} is not allowed: every operation is a POST`);
      if (path.startsWith('/dev/')) {
        if (!options.devEndpoints) throw new ServiceError('not_found', `${path}: the dev endpoints are off (start the server with --dev-endpoints)`);
        return runDev(req, res, path);
      }
      const match = /^\/v1\/([A-Za-z]+(?:\/[A-Za-z]+)+)$/.exec(path);
      const rpc = match ? match[1]!.split('/').join('.') : undefined;
      if (!rpc || !isRpc(rpc)) throw new ServiceError('unimplemented', `no operation at ${path}`, { path });
      return runOperation(req, res, rpc);
    };
    handle().catch(async (error: unknown) => {
      // A failed request rolled back its own writes, but it may have read others' that are still
      // being committed: answer after that commit too (its own failure, if any, is not this one's).
      await committed(db).catch(() => undefined);
      if (res.destroyed) return;
      // An answer already begun cannot be replaced by an error: the connection ends instead.
      if (res.headersSent) return res.destroy();
      // An answer given before the body arrived (401, 415, 413) closes the connection (http-port.ts).
      if (error instanceof BodyTooLarge) {
        sendError(res, new ServiceError('payload_too_large', `the request body is larger than ${MAX_BODY_BYTES} bytes`), { connection: 'close' });
        return;
      }
      const known = asServiceError(error);
      if (known) {
        sendError(res, known, known.code === 'method_not_allowed' ? { allow: 'POST' } : {});
        return;
      }
      options.onInternalError?.(error);
      sendError(res, new ServiceError('internal', 'internal error'));
    });
  };
  return createHttpServer({ ...timeouts, maxBodyBytes: MAX_BODY_BYTES, maxConnections }, onRequest, options.env);
}
