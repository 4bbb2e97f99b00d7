// The one opener: every command that talks to the Control API connects through openConnection.
// It resolves the URL and credential (resolve.ts, pure), starts a local control plane through the
// registry when the URL is `local`, runs the key/environment guard before any request, and builds
// the client (retries from AGENTFORM_MAX_RETRIES, the request timeout from AGENTFORM_TIMEOUT,
// --debug traces, --insecure-http, HTTPS_PROXY and NO_PROXY, throttling counted for the run).
import { join } from 'node:path';
import { ControlApiClient, type Credential, type RequestEvent } from '../api/client.js';
import { requestTimeoutMsFrom } from '../api/request-timeout.js';
import { maxResponseBytesFrom } from '../api/response-limit.js';
import { retryPolicyFrom, type RetryPolicy } from '../api/retry.js';
import { RUN_THROTTLING } from '../api/throttling.js';
import type { ProjectEnvironment } from '../config/index.js';
import { UserError } from '../errors.js';
import type { EnvironmentTarget } from '../model/resources.js';
import { LocalPlanes, type HeldPlane, type LocalEnvironmentSpec } from './local-planes.js';
import {
  type ConnectFlags,
  type ConnectionDefaults,
  directLocalEnvironment,
  LOCAL_LABEL,
  LOCAL_URL,
  MISSING_DIRECT_CREDENTIAL,
  resolveConnection,
  resolveTarget,
  targetCredential,
  type Variables,
} from './resolve.js';

/** The flags that shape the client, besides where it connects. */
export interface ClientFlags extends ConnectFlags {
  debug?: boolean;
  insecureHttp?: boolean;
}

/** What to connect to. */
export type OpenRequest =
  /** No project: --url/--token, then AGENTFORM_* variables; `local` starts the plane in `cwd`/.agentform/local. */
  | { kind: 'direct'; cwd: string; defaults?: ConnectionDefaults }
  /** One environment of a project (its target from agentform.yaml); the guard applies. */
  | { kind: 'environment'; projectDir: string; environments: Readonly<Record<string, ProjectEnvironment>>; target: EnvironmentTarget };

export interface OpenOptions {
  flags: ClientFlags;
  env: Variables;
  /** The run's local planes; a connection of its own when not given. */
  planes?: LocalPlanes;
  onRequest?: (event: RequestEvent) => void;
  /** Told, once, when the local control plane is used. */
  announce?: (line: string) => void;
}

export interface Connection {
  client: ControlApiClient;
  /** The credential in use (for `local`, the plane's key). Never print it. */
  credential: Credential;
  /** The environment the credential acts on, when it can be known. */
  environment?: string;
  isLocal: boolean;
  /** LOCAL_LABEL or the URL. */
  targetLabel: string;
  /** The API key in use, if any (a run must never prune it). */
  token?: string;
  close(): Promise<void>;
}

export function debugSink(flags: Pick<ClientFlags, 'debug'>, env: Variables): ((line: string) => void) | undefined {
  return flags.debug || env.AGENTFORM_DEBUG === '1' ? (line: string) => process.stderr.write(`[debug] ${line}\n`) : undefined;
}

/** What the variables say about every request; read first, so that a bad value fails before a local plane starts. */
interface ClientSettings {
  retry: RetryPolicy;
  timeoutMs: number;
  maxResponseBytes: number;
}

function clientSettingsFrom(env: Variables): ClientSettings {
  return { retry: retryPolicyFrom(env), timeoutMs: requestTimeoutMsFrom(env), maxResponseBytes: maxResponseBytesFrom(env) };
}

function clientFor(
  baseUrl: string,
  credential: Credential,
  flags: ClientFlags,
  env: Variables,
  settings: ClientSettings,
  extra: { onRequest?: (event: RequestEvent) => void; urlSource?: string },
): ControlApiClient {
  const debug = debugSink(flags, env);
  return new ControlApiClient({
    baseUrl,
    credential,
    retry: settings.retry,
    timeoutMs: settings.timeoutMs,
    maxResponseBytes: settings.maxResponseBytes,
    insecureHttp: flags.insecureHttp === true,
    proxyVariables: env,
    throttling: RUN_THROTTLING,
    ...(debug ? { debug } : {}),
    ...(extra.onRequest ? { onRequest: extra.onRequest } : {}),
    ...(extra.urlSource ? { urlSource: extra.urlSource } : {}),
  });
}

const ANNOUNCEMENT = 'Using the local control plane (.agentform/local)\n';

export async function openConnection(request: OpenRequest, options: OpenOptions): Promise<Connection> {
  const settings = clientSettingsFrom(options.env);
  const planes = options.planes ?? new LocalPlanes();
  return request.kind === 'direct' ? openDirectRequest(request, options, settings, planes) : openEnvironment(request, options, settings, planes);
}

/** The client, or (failing to make one: a bad URL, a bad proxy variable) the error, with the plane held for it released. */
async function clientHolding(held: HeldPlane | undefined, make: () => ControlApiClient): Promise<ControlApiClient> {
  try {
    return make();
  } catch (error) {
    await held?.release();
    throw error;
  }
}

/** A connection without a project (--url/--token, AGENTFORM_* variables), as whoami and export use it outside a project. */
export function openDirect(
  flags: ClientFlags,
  env: Variables = process.env,
  options: Omit<OpenOptions, 'flags' | 'env'> & { cwd?: string } = {},
): Promise<Connection> {
  const { cwd, ...rest } = options;
  return openConnection({ kind: 'direct', cwd: cwd ?? process.cwd() }, { ...rest, flags, env });
}

async function openDirectRequest(
  request: Extract<OpenRequest, { kind: 'direct' }>,
  options: OpenOptions,
  settings: ClientSettings,
  planes: LocalPlanes,
): Promise<Connection> {
  const { flags, env } = options;
  const resolved = resolveConnection(flags, env, request.defaults);
  let baseUrl = resolved.baseUrl;
  let credential = resolved.credential;
  let environment = resolved.environment;
  let held: HeldPlane | undefined;
  if (baseUrl === LOCAL_URL) {
    const wanted = directLocalEnvironment(resolved, env);
    held = await planes.acquire(join(request.cwd, '.agentform', 'local'), [{ slug: wanted }], env);
    baseUrl = held.plane.url;
    environment = wanted;
    credential ??= { kind: 'key', token: held.plane.tokens[wanted] as string };
    options.announce?.(ANNOUNCEMENT);
  }
  if (!credential) {
    await held?.release();
    throw new UserError(MISSING_DIRECT_CREDENTIAL).withCode('no_credential');
  }
  const client = await clientHolding(held, () =>
    clientFor(baseUrl, credential, flags, env, settings, options.onRequest ? { onRequest: options.onRequest } : {}),
  );
  return finish(client, credential, environment, held, held ? LOCAL_LABEL : baseUrl);
}

async function openEnvironment(
  request: Extract<OpenRequest, { kind: 'environment' }>,
  options: OpenOptions,
  settings: ClientSettings,
  planes: LocalPlanes,
): Promise<Connection> {
  const { flags, env } = options;
  const { target } = request;
  const resolved = resolveTarget(target, flags, env);
  let baseUrl = resolved.url;
  let token = resolved.token;
  let held: HeldPlane | undefined;
  if (resolved.url === LOCAL_URL) {
    held = await planes.acquire(join(request.projectDir, '.agentform', 'local'), localEnvironmentsOf(target, request.environments), env);
    baseUrl = held.plane.url;
    token = held.plane.tokens[target.slug];
    if (!token) {
      await held.release();
      throw new UserError(`the local control plane has no environment ${target.slug}`, `set url: local for ${target.name} in agentform.yaml`);
    }
    options.announce?.(ANNOUNCEMENT);
  }
  let credential: Credential;
  try {
    credential = targetCredential(target, token, resolved.tokenSource, env);
  } catch (error) {
    await held?.release();
    throw error;
  }
  const client = await clientHolding(held, () =>
    clientFor(baseUrl, credential, flags, env, settings, {
      ...(options.onRequest ? { onRequest: options.onRequest } : {}),
      ...(held ? {} : { urlSource: resolved.urlSource }),
    }),
  );
  return finish(client, credential, target.slug, held, held ? LOCAL_LABEL : resolved.url);
}

/**
 * Every local environment of the project, each with the kind it declares: the plane is started with
 * all of them, so a promotion between two local environments finds both.
 */
function localEnvironmentsOf(target: EnvironmentTarget, environments: Readonly<Record<string, ProjectEnvironment>>): LocalEnvironmentSpec[] {
  const specs = new Map<string, LocalEnvironmentSpec>();
  for (const other of [target, ...Object.values(environments)]) {
    if (other.url !== LOCAL_URL && other !== target) continue;
    const kind = environments[other.name]?.settings?.kind;
    specs.set(other.slug, { slug: other.slug, ...(typeof kind === 'string' ? { kind } : {}) });
  }
  return [...specs.values()];
}

function finish(
  client: ControlApiClient,
  credential: Credential,
  environment: string | undefined,
  held: HeldPlane | undefined,
  targetLabel: string,
): Connection {
  return {
    client,
    credential,
    ...(environment ? { environment } : {}),
    isLocal: held !== undefined,
    targetLabel,
    ...(credential.kind === 'key' ? { token: credential.token } : {}),
    close: async () => {
      await client.close();
      await held?.release();
    },
  };
}
