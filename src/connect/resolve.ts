// Where the URL and the credential come from: a pure resolver (no I/O, no process globals), so every
// row of the precedence table is unit-tested (test/connect/resolve.test.ts). Highest first:
//
//   with a project environment          without a project
//   1. --url / --token                  1. --url / --token
//   2. AGENTFORM_URL_<ENV> /            2. AGENTFORM_URL / AGENTFORM_TOKEN
//      AGENTFORM_TOKEN_<ENV>            3. defaults the caller passes
//   3. environments.<env>.url / token
//      in agentform.yaml
//   4. AGENTFORM_URL / AGENTFORM_TOKEN
//
// When no key is found, AGENTFORM_COOKIE (with AGENTFORM_ORGANIZATION and AGENTFORM_ENVIRONMENT) is
// the credential. A key names its environment (svc_<env>_…); for a project environment the guard
// refuses a key of another environment before any request.
// An environment with no URL at all is an error: never a silent fall-back to the local control plane.
import type { Credential } from '../api/client.js';
import { parseApiKey } from '../api/credentials.js';
import { envReferenceName } from '../config/interpolate.js';
import { UserError } from '../errors.js';
import type { EnvironmentTarget } from '../model/resources.js';

import type { Variables } from '../util/variables.js';

export type { Variables };

/** The connection flags a command was given (a subset of the CLI's global options). */
export interface ConnectFlags {
  url?: string;
  token?: string;
}

/** `local`: the embedded control plane in .agentform/local instead of a URL. */
export const LOCAL_URL = 'local';
export const LOCAL_LABEL = 'the local control plane (.agentform/local)';

/** A project environment's URL and key, each with where it came from (for messages). */
export interface ResolvedTarget {
  url: string;
  /** Where the URL came from, for messages. */
  urlSource: string;
  token?: string;
  tokenSource?: string;
}

/** `AGENTFORM_URL_<ENV>`'s suffix: the name upper-cased, `-` → `_`. */
export function environmentVariableSuffix(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
}

function firstSet(candidates: Array<[string | undefined, string]>): [string, string] | undefined {
  const found = candidates.find(([value]) => value !== undefined && value !== '');
  return found ? [found[0] as string, found[1]] : undefined;
}

/** The precedence table for a project environment (flags apply to the selected environment only: the caller leaves them out otherwise). */
export function resolveTarget(target: EnvironmentTarget, flags: ConnectFlags, env: Variables): ResolvedTarget {
  const suffix = environmentVariableSuffix(target.name);
  const url = firstSet([
    [flags.url, '--url'],
    [env[`AGENTFORM_URL_${suffix}`], `AGENTFORM_URL_${suffix}`],
    [target.url, `environments.${target.name}.url in agentform.yaml`],
    [env.AGENTFORM_URL, 'AGENTFORM_URL'],
  ]);
  if (!url) {
    throw new UserError(
      `environment ${target.name} has no Control API URL`,
      `set url in agentform.yaml, AGENTFORM_URL_${suffix}, or --url (use "local" for the local control plane)`,
    ).withCode('no_url');
  }
  const token = firstSet([
    [flags.token, '--token'],
    [env[`AGENTFORM_TOKEN_${suffix}`], `AGENTFORM_TOKEN_${suffix}`],
    [target.credential?.value, target.credential ? `${target.credential.source} (environments.${target.name}.token)` : ''],
    [env.AGENTFORM_TOKEN, 'AGENTFORM_TOKEN'],
  ]);
  return { url: url[0], urlSource: url[1], ...(token ? { token: token[0], tokenSource: token[1] } : {}) };
}

/** The cookie credential, when AGENTFORM_COOKIE is set; `environment` is the one it must act on, if known. */
export function cookieCredential(env: Variables, environment: string | undefined): Extract<Credential, { kind: 'cookie' }> | undefined {
  if (!env.AGENTFORM_COOKIE) return undefined;
  return {
    kind: 'cookie',
    cookie: env.AGENTFORM_COOKIE,
    ...(env.AGENTFORM_ORGANIZATION ? { organization: env.AGENTFORM_ORGANIZATION } : {}),
    ...(environment ? { environment } : {}),
  };
}

/** The key/environment guard: a key for one environment must never act on another. */
export function guardKey(token: string, slug: string, source: string | undefined): Credential {
  const keyEnvironment = parseApiKey(token).environment;
  if (keyEnvironment !== slug) {
    throw new UserError(
      `the key from ${source ?? 'the local control plane'} is for environment ${keyEnvironment}, not ${slug}`,
      'refusing to send it anywhere: a key for one environment must never act on another',
    ).withCode('key_environment_mismatch');
  }
  return { kind: 'key', token };
}

/**
 * The credential for a project environment: its key (guarded), else the cookie (whose
 * AGENTFORM_ENVIRONMENT, if set, must be this environment), else a "no credential" error.
 */
export function targetCredential(target: EnvironmentTarget, token: string | undefined, tokenSource: string | undefined, env: Variables): Credential {
  if (token) return guardKey(token, target.slug, tokenSource);
  const cookieEnvironment = env.AGENTFORM_ENVIRONMENT;
  const cookie = cookieCredential(env, target.slug);
  if (!cookie) throw missingCredentialError(target, env);
  if (cookieEnvironment && cookieEnvironment !== target.slug)
    throw new UserError(`AGENTFORM_ENVIRONMENT is ${cookieEnvironment}, not ${target.slug}`).withCode('key_environment_mismatch');
  return cookie;
}

/**
 * "No credential" for an environment, naming what was looked at: the variable agentform.yaml's
 * `token` reads (unset), the per-environment variable, and the flag.
 */
export function missingCredentialError(target: EnvironmentTarget, env: Variables): UserError {
  const suffix = environmentVariableSuffix(target.name);
  const configured = target.credential ? envReferenceName(target.credential.source) : undefined;
  if (configured && !env[configured]) {
    return new UserError(
      `no credential for environment ${target.name}: ${configured} is not set`,
      `agentform.yaml reads its token from ${target.credential!.source}; set ${configured}, or AGENTFORM_TOKEN_${suffix}, or pass --token`,
    ).withCode('no_credential');
  }
  return new UserError(
    `no credential for environment ${target.name}`,
    `set the token in agentform.yaml (token: \${env:...}), AGENTFORM_TOKEN_${suffix}, or --token`,
  ).withCode('no_credential');
}

/** The connection without a project. */
export interface ResolvedConnection {
  baseUrl: string;
  credential?: Credential;
  /** The environment the credential acts on, when it can be known. */
  environment?: string;
}

/** Settings a caller may supply as the lowest row; flags and variables beat them. */
export interface ConnectionDefaults {
  url?: string;
  token?: string;
}

/** The precedence table without a project: flags, then AGENTFORM_* variables, then `defaults`. */
export function resolveConnection(flags: ConnectFlags, env: Variables, defaults: ConnectionDefaults = {}): ResolvedConnection {
  const baseUrl = flags.url ?? env.AGENTFORM_URL ?? defaults.url;
  if (!baseUrl) {
    throw new UserError('no Control API URL: pass --url or set AGENTFORM_URL', 'use --url local for the local control plane in .agentform/local').withCode(
      'no_url',
    );
  }
  // A cookie in the environment beats a token the caller's defaults supply, never a flag or variable.
  const token = flags.token ?? env.AGENTFORM_TOKEN ?? (env.AGENTFORM_COOKIE ? undefined : defaults.token);
  if (token) return { baseUrl, credential: { kind: 'key', token }, environment: parseApiKey(token).environment };
  const cookie = cookieCredential(env, env.AGENTFORM_ENVIRONMENT);
  if (cookie) return { baseUrl, credential: cookie, ...(cookie.environment ? { environment: cookie.environment } : {}) };
  return { baseUrl };
}

/** The local environment to start without a project: AGENTFORM_ENVIRONMENT, else the key's, else dev. */
export function directLocalEnvironment(resolved: ResolvedConnection, env: Variables): string {
  return env.AGENTFORM_ENVIRONMENT ?? resolved.environment ?? 'dev';
}

export const MISSING_DIRECT_CREDENTIAL = 'no credential: pass --token or set AGENTFORM_TOKEN (or AGENTFORM_COOKIE)';
