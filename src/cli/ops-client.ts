// The one place where operations commands (hooks, sessions, usage, keys, ...) decide which Control
// API they talk to, so that every one of them takes the same flags and follows the same rule:
//   - with -e/--env, or when the directory (--dir, default the cwd) holds agentform.yaml: that
//     environment of the project, resolved exactly like plan/apply (environment-target.ts), and a
//     key for another environment is refused;
//   - otherwise: --url/--token, then AGENTFORM_URL/AGENTFORM_TOKEN/AGENTFORM_COOKIE (context.ts).
// Unlike plan, an operations command does not need the project's resources, so an unset ${env:}
// in a resource file (a provider secret, say) does not stop `agentform sandboxes`.
// This module is imported by the light command registrations: heavy imports stay inside functions.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { Credential } from '../api/client.js';
import type { RpcCaller } from '../api/operations.js';
import type { GlobalOptions } from './global-options.js';
import { dirOption } from './project-dir.js';

export interface OpsOptions {
  env?: string;
  dir?: string;
  json?: boolean;
}

/** -e/--env and --dir (plus --json unless the command says otherwise) on an operations command. */
export function addOpsOptions(command: Command, options: { json?: boolean } = {}): Command {
  command
    .addOption(new Option('-e, --env <name>', "an environment of the project's agentform.yaml (its url and token)"))
    .addOption(dirOption());
  if (options.json !== false) command.addOption(new Option('--json', 'print the API answer as JSON, for scripts'));
  return command;
}

export interface OpsClient {
  client: RpcCaller;
  /** How the client authenticates (a key or a cookie; never printed). */
  credential: Credential;
  /** The environment the credential acts on, when known. */
  environment?: string;
  /** "the local control plane (.agentform/local)" or the URL. */
  targetLabel: string;
  close(): Promise<void>;
}

const ROOT_FILE = 'agentform.yaml';

export function usesProject(options: OpsOptions, cwd: string = process.cwd()): boolean {
  return options.env !== undefined || existsSync(join(resolve(cwd, options.dir ?? '.'), ROOT_FILE));
}

export async function openOpsClient(options: OpsOptions, globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<OpsClient> {
  if (usesProject(options)) return openProjectClient(resolve(options.dir ?? '.'), options.env, globals, env);
  const { createClient } = await import('./context.js');
  const connected = await createClient(globals, env);
  const label = connected.isLocal ? 'the local control plane (.agentform/local)' : (globals.url ?? env.AGENTFORM_URL ?? '');
  return {
    client: connected.client,
    credential: connected.credential,
    ...(connected.environment ? { environment: connected.environment } : {}),
    targetLabel: label,
    close: () => connected.close(),
  };
}

async function openProjectClient(dir: string, requested: string | undefined, globals: GlobalOptions, env: NodeJS.ProcessEnv): Promise<OpsClient> {
  const [{ loadProject }, { pickEnvironment, environmentUrl }, { resolveTarget, missingCredentialError }, { parseApiKey }, { clientFor }, { UserError }] = await Promise.all([
    import('../config/index.js'),
    import('./plan-pipeline.js'),
    import('./environment-target.js'),
    import('../api/credentials.js'),
    import('./context.js'),
    import('../errors.js'),
  ]);
  const project = await loadProject(dir);
  const name = pickEnvironment(project, requested);
  const settings = project.environments[name];
  if (!settings) throw new UserError(`unknown environment ${name}`);
  // Only a URL that interpolates variables needs the full build (which also checks every resource).
  const url = environmentUrl(project, name, env);
  const credentialMatch = settings.credential ? /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(settings.credential.source) : null;
  const credentialValue = credentialMatch ? env[credentialMatch[1] as string] : undefined;
  const target = {
    name: settings.name,
    slug: settings.slug,
    url,
    prune: settings.prune,
    ...(settings.credential ? { credential: { source: settings.credential.source, ...(credentialValue ? { value: credentialValue } : {}) } } : {}),
  };
  const resolved = resolveTarget(target, globals, env);

  let baseUrl = resolved.url;
  let token = resolved.token;
  let targetLabel = resolved.url;
  let closeLocal: (() => Promise<void>) | undefined;
  if (resolved.url === 'local') {
    const [{ startLocalControlPlane, LOCAL_URL_DURABILITY }, { serverProfileFromEnv }] = await Promise.all([import('../server/embedded.js'), import('../server/profiles.js')]);
    const localSlugs = Object.values(project.environments)
      .filter((environment) => environment.url === 'local')
      .map((environment) => environment.slug);
    const local = await startLocalControlPlane({
      dataDir: join(project.dir, '.agentform', 'local'),
      environments: [...new Set([target.slug, ...localSlugs])],
      profile: serverProfileFromEnv(env),
      durability: LOCAL_URL_DURABILITY,
    });
    closeLocal = () => local.close();
    baseUrl = local.url;
    token = local.tokens[target.slug];
    targetLabel = 'the local control plane (.agentform/local)';
    process.stderr.write('Using the local control plane (.agentform/local)\n');
  }
  try {
    let credential: Credential;
    if (token) {
      const keyEnvironment = parseApiKey(token).environment;
      if (keyEnvironment !== target.slug) {
        throw new UserError(
          `the key from ${resolved.tokenSource ?? 'the local control plane'} is for environment ${keyEnvironment}, not ${target.slug}`,
          'refusing to send it anywhere: a key for one environment must never act on another',
        );
      }
      credential = { kind: 'key', token };
    } else if (env.AGENTFORM_COOKIE) {
      credential = {
        kind: 'cookie',
        cookie: env.AGENTFORM_COOKIE,
        environment: target.slug,
        ...(env.AGENTFORM_ORGANIZATION ? { organization: env.AGENTFORM_ORGANIZATION } : {}),
      };
    } else {
      throw missingCredentialError(target, env);
    }
    const client = clientFor(baseUrl, credential, globals, env, closeLocal ? {} : { urlSource: resolved.urlSource });
    return {
      client,
      credential,
      environment: target.slug,
      targetLabel,
      close: async () => {
        await client.close();
        await closeLocal?.();
      },
    };
  } catch (error) {
    await closeLocal?.();
    throw error;
  }
}

/** Progress lines go to a terminal only: CI logs and pipes stay quiet. */
export function progressEnabled(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && (env.CI === undefined || env.CI === '' || env.CI === 'false');
}

/** Opens the client, runs `work`, always closes (the local control plane too). */
export async function withOpsClient<T>(options: OpsOptions, globals: GlobalOptions, work: (ops: OpsClient) => Promise<T>): Promise<T> {
  const ops = await openOpsClient(options, globals);
  try {
    return await work(ops);
  } finally {
    await ops.close();
  }
}
