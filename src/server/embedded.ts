// The local control plane as a library: start it over a data dir, get its URL and keys, close it.
// Used by `agentform server`, by `url: local` in the CLI, and by tests.
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { isLoopbackUrl } from '../util/loopback.js';
import { bootstrap, type LocalEnvironment } from './bootstrap.js';
import type { ServerServices } from './context.js';
import { FaultInjector, type FaultOptions } from './faults.js';
import { sendHook } from './hooks/send.js';
import { HookWorker } from './hooks/worker.js';
import { createControlPlaneServer, type ServerTimeouts } from './http.js';
import { createServerProfile, serverProfileFromEnv, type ServerProfileName } from './profiles.js';
import { ensurePrivateDataDir } from './store/data-dir.js';
import { openDatabase, type Durability } from './store/db.js';
import { enableGroupCommit, flushGroup } from './store/group-commit.js';
import { warmValidators } from './validate.js';
import { RPC_NAMES } from '../api/operations.js';
import { serverKeySource } from './store/sealed.js';
import { loadSqlite } from './store/sqlite.js';

export interface LocalControlPlane {
  url: string;
  /** The server profile it runs (see LocalControlPlaneOptions.profile). */
  profile: ServerProfileName;
  /** Environment slug → API key (read + control) from credentials.json. */
  tokens: Record<string, string>;
  close(): Promise<void>;
}

export interface LocalControlPlaneOptions {
  dataDir: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Default ['dev']. A slug, or {slug, kind} to give a new environment its kind (it cannot change later). */
  environments?: Array<string | LocalEnvironment>;
  /** Environments (slugs) to unarchive before starting: the recovery from an archive made by mistake. */
  unarchive?: string[];
  /**
   * Let connections.test, providers.models and hook deliveries reach hosts other than this machine.
   * Off by default: the local control plane is for offline work and tests, which must never send
   * traffic anywhere but loopback.
   */
  allowRemoteOutbound?: boolean;
  faults?: FaultOptions;
  hookRetry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** How long an agent image stays `baking` (default 300 ms). */
  bakeMs?: number;
  /** Unexpected server errors (default: one line on stderr). */
  onInternalError?: (error: unknown) => void;
  /** Slow-client limits (default 10 s for headers, 30 s for a whole request). */
  timeouts?: Partial<ServerTimeouts>;
  /** Connections open at once before more are answered 503 (default DEFAULT_MAX_CONNECTIONS, 256). */
  maxConnections?: number;
  /**
   * How the server fills the API description's gaps (src/server/profiles.ts). Default: the
   * AGENTFORM_SERVER_PROFILE environment variable, else `default`; so every embedded plane — the
   * one `url: local` starts in a CLI process included — can be pointed at the pessimistic profile.
   */
  profile?: ServerProfileName;
  /**
   * Serve the dev-only endpoints under /dev/ (session cookies, the session simulator, the hook
   * delivery list). Off by default: `agentform server --dev-endpoints` or tests turn them on.
   */
  devEndpoints?: boolean;
  /**
   * `POST /dev/tools/call` refuses a call the agent's tool policy denies, and does not run one that
   * waits for a decision (default false: the call is made and its decision only reported).
   */
  enforceToolPolicy?: boolean;
  /**
   * Where AGENTFORM_SERVER_KEY and AGENTFORM_OPTIMIZATIONS (which HTTP/1.1 server answers:
   * http-factory.ts) are read from (default process.env); tests pass their own.
   */
  env?: NodeJS.ProcessEnv;
  /** Default `full` (store/db.ts Durability). */
  durability?: Durability;
  /**
   * Compile every request validator in the background once listening (`agentform server`), rather
   * than on each operation's first request. Off by default: tests start many short-lived servers.
   */
  warmUp?: boolean;
}

export const DATABASE_FILE = 'control-plane.db';
/**
 * The plane that `url: local` starts behind the CLI: `normal` durability. Its data is what the
 * project's configuration says, so a commit lost to a power cut is put back by the next apply,
 * while an fsync per write would make an apply of 1,000 agents several seconds slower.
 * `agentform server` (long-lived, shared) keeps `full` unless told otherwise.
 */
export const LOCAL_URL_DURABILITY: Durability = 'normal';
export const DEFAULT_BAKE_MS = 300;

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startLocalControlPlane(opts: LocalControlPlaneOptions): Promise<LocalControlPlane> {
  const host = opts.host ?? '127.0.0.1';
  // Checked first: an unknown AGENTFORM_SERVER_PROFILE is a user error, before anything is created.
  const profile = createServerProfile(opts.profile ?? serverProfileFromEnv());
  // Checked before the data dir is created: better-sqlite3 is optional (store/sqlite.ts).
  loadSqlite();
  ensurePrivateDataDir(opts.dataDir);
  const db = openDatabase(join(opts.dataDir, DATABASE_FILE), {
    keys: serverKeySource(opts.dataDir, opts.env),
    ...(opts.durability ? { durability: opts.durability } : {}),
  });
  const worker = new HookWorker(db, {
    ...opts.hookRetry,
    send: async (delivery) => {
      if (!opts.allowRemoteOutbound && !isLoopbackUrl(delivery.url)) return { ok: false, error: outboundRefusal(delivery.url, 'hook receiver') };
      return sendHook(delivery);
    },
  });
  const services: ServerServices = {
    bakeMs: opts.bakeMs ?? DEFAULT_BAKE_MS,
    // Imported on first use: the MCP SDK is not needed to start the server.
    listTools: async (url, o) => {
      refuseRemote(url, opts.allowRemoteOutbound, 'tool server');
      return (await import('./mcp-tools.js')).listTools(url, o);
    },
    callTool: async (url, name, args) => {
      refuseRemote(url, opts.allowRemoteOutbound, 'tool server');
      return (await import('./mcp-tools.js')).callTool(url, name, args);
    },
    listModels: async (provider) => {
      if (provider.baseUrl) refuseRemote(provider.baseUrl, opts.allowRemoteOutbound, 'model provider');
      return (await import('./model-catalog.js')).listModels(provider);
    },
    wakeHooks: () => worker.wake(),
  };
  const server = createControlPlaneServer({
    db,
    services,
    faults: new FaultInjector(opts.faults),
    profile,
    devEndpoints: opts.devEndpoints === true,
    enforceToolPolicy: opts.enforceToolPolicy === true,
    ...(opts.timeouts ? { timeouts: opts.timeouts } : {}),
    ...(opts.maxConnections !== undefined ? { maxConnections: opts.maxConnections } : {}),
    ...(opts.env ? { env: opts.env } : {}),
    onInternalError:
      opts.onInternalError ??
      ((error) => process.stderr.write(`agentform server: internal error: ${error instanceof Error ? error.message : String(error)}\n`)),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    db.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(host)}:${port}`;
  let tokens: Record<string, string>;
  try {
    const environments = (opts.environments ?? ['dev']).map((entry) => (typeof entry === 'string' ? { slug: entry } : entry));
    tokens = bootstrap(db, opts.dataDir, environments, url, profile.defaults, opts.unarchive);
  } catch (error) {
    server.close();
    db.close();
    throw error;
  }
  // Bootstrap's writes are committed; from here on writes are grouped per event-loop turn.
  enableGroupCommit(db);
  worker.start();
  const stopWarming = opts.warmUp ? warmValidators(RPC_NAMES) : undefined;

  let closing: Promise<void> | undefined;
  return {
    url,
    profile: profile.name,
    tokens,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        stopWarming?.();
        await worker.stop();
        flushGroup(db);
        db.close();
      })()),
  };
}

function outboundRefusal(url: string, what: string): string {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // keep the text as given
  }
  return `the local control plane reaches only servers on this machine (127.0.0.0/8, localhost, ::1); the ${what} at ${host} is not (start it with --allow-remote-outbound to allow)`;
}

function refuseRemote(url: string, allowed: boolean | undefined, what: string): void {
  if (!allowed && !isLoopbackUrl(url)) throw new Error(outboundRefusal(url, what));
}
