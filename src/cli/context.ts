// Connection settings for commands that work without a project (whoami, operations commands):
// flags first, then AGENTFORM_* variables. Project commands go through environment-target.ts.
import { join } from 'node:path';
import { ControlApiClient, type Credential, type RequestEvent } from '../api/client.js';
import { parseApiKey } from '../api/credentials.js';
import { retryPolicyFrom } from '../api/retry.js';
import { UserError } from '../errors.js';
import type { GlobalOptions } from './global-options.js';

export interface ResolvedConnection {
  baseUrl: string;
  credential?: Credential;
  /** The environment the credential acts on, when it can be known. */
  environment?: string;
}

/** Settings a project file may supply; flags and variables beat them. */
export interface ConnectionDefaults {
  url?: string;
  token?: string;
}

export function resolveConnection(globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env, fromConfig: ConnectionDefaults = {}): ResolvedConnection {
  const baseUrl = globals.url ?? env.AGENTFORM_URL ?? fromConfig.url;
  if (!baseUrl) {
    throw new UserError('no Control API URL: pass --url or set AGENTFORM_URL', 'use --url local for the local control plane in .agentform/local');
  }
  const token = globals.token ?? env.AGENTFORM_TOKEN ?? (env.AGENTFORM_COOKIE ? undefined : fromConfig.token);
  if (token) {
    return { baseUrl, credential: { kind: 'key', token }, environment: parseApiKey(token).environment };
  }
  if (env.AGENTFORM_COOKIE) {
    return {
      baseUrl,
      credential: {
        kind: 'cookie',
        cookie: env.AGENTFORM_COOKIE,
        ...(env.AGENTFORM_ORGANIZATION ? { organization: env.AGENTFORM_ORGANIZATION } : {}),
        ...(env.AGENTFORM_ENVIRONMENT ? { environment: env.AGENTFORM_ENVIRONMENT } : {}),
      },
      ...(env.AGENTFORM_ENVIRONMENT ? { environment: env.AGENTFORM_ENVIRONMENT } : {}),
    };
  }
  return { baseUrl };
}

export function debugSink(globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env): ((line: string) => void) | undefined {
  return globals.debug || env.AGENTFORM_DEBUG === '1' ? (line: string) => process.stderr.write(`[debug] ${line}\n`) : undefined;
}

/** The one way the CLI builds a client: retries from AGENTFORM_MAX_RETRIES, --debug traces, --insecure-http. */
export function clientFor(
  baseUrl: string,
  credential: Credential,
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  extra: { onRequest?: (event: RequestEvent) => void; urlSource?: string } = {},
): ControlApiClient {
  const debug = debugSink(globals, env);
  return new ControlApiClient({
    baseUrl,
    credential,
    retry: retryPolicyFrom(env),
    insecureHttp: globals.insecureHttp === true,
    ...(debug ? { debug } : {}),
    ...(extra.onRequest ? { onRequest: extra.onRequest } : {}),
    ...(extra.urlSource ? { urlSource: extra.urlSource } : {}),
  });
}

export interface ConnectedClient {
  client: ControlApiClient;
  /** The credential in use (for `local`, the local control plane's key). Never print it. */
  credential: Credential;
  environment?: string;
  isLocal: boolean;
  close(): Promise<void>;
}

/** A client for the resolved connection; `local` starts the embedded control plane over .agentform/local. */
export async function createClient(
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
  onRequest?: (event: RequestEvent) => void,
): Promise<ConnectedClient> {
  const resolved = resolveConnection(globals, env);
  let closeLocal: (() => Promise<void>) | undefined;
  let baseUrl = resolved.baseUrl;
  let credential = resolved.credential;
  let environment = resolved.environment;
  if (baseUrl === 'local') {
    const [{ startLocalControlPlane, LOCAL_URL_DURABILITY }, { serverProfileFromEnv }] = await Promise.all([import('../server/embedded.js'), import('../server/profiles.js')]);
    const wanted = env.AGENTFORM_ENVIRONMENT ?? environment ?? 'dev';
    // durability normal: see LOCAL_URL_DURABILITY.
    const local = await startLocalControlPlane({ dataDir: join(process.cwd(), '.agentform', 'local'), environments: [wanted], profile: serverProfileFromEnv(env), durability: LOCAL_URL_DURABILITY });
    closeLocal = () => local.close();
    baseUrl = local.url;
    environment = wanted;
    credential ??= { kind: 'key', token: local.tokens[wanted] as string };
    process.stderr.write('Using the local control plane (.agentform/local)\n');
  }
  if (!credential) {
    await closeLocal?.();
    throw new UserError('no credential: pass --token or set AGENTFORM_TOKEN (or AGENTFORM_COOKIE)');
  }
  const client = clientFor(baseUrl, credential, globals, env, onRequest ? { onRequest } : {});
  return {
    client,
    credential,
    ...(environment ? { environment } : {}),
    isLocal: closeLocal !== undefined,
    close: async () => {
      await client.close();
      await closeLocal?.();
    },
  };
}
