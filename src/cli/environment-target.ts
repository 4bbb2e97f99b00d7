// Which URL and credential a project command uses for one environment. One precedence table
// (documented in README), highest first:
//   1. --url / --token flags (for the selected environment only)
//   2. AGENTFORM_URL_<ENV> / AGENTFORM_TOKEN_<ENV>   (<ENV> = name upper-cased, `-` → `_`)
//   3. the environment's `url` / `token` in agentform.yaml
//   4. AGENTFORM_URL / AGENTFORM_TOKEN
// An environment with no URL at all is an error: never a silent fall-back to the local control plane.
import type { EnvironmentTarget } from '../model/resources.js';
import { UserError } from '../errors.js';
import type { GlobalOptions } from './global-options.js';

export interface ResolvedTarget {
  url: string;
  /** Where the URL came from, for messages. */
  urlSource: string;
  token?: string;
  tokenSource?: string;
}

export function environmentVariableSuffix(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
}

export function resolveTarget(target: EnvironmentTarget, globals: GlobalOptions, env: NodeJS.ProcessEnv): ResolvedTarget {
  const suffix = environmentVariableSuffix(target.name);
  const urlCandidates: Array<[string | undefined, string]> = [
    [globals.url, '--url'],
    [env[`AGENTFORM_URL_${suffix}`], `AGENTFORM_URL_${suffix}`],
    [target.url, `environments.${target.name}.url in agentform.yaml`],
    [env.AGENTFORM_URL, 'AGENTFORM_URL'],
  ];
  const url = urlCandidates.find(([value]) => value !== undefined && value !== '');
  if (!url) {
    throw new UserError(
      `environment ${target.name} has no Control API URL`,
      `set url in agentform.yaml, AGENTFORM_URL_${suffix}, or --url (use "local" for the local control plane)`,
    );
  }
  const tokenCandidates: Array<[string | undefined, string]> = [
    [globals.token, '--token'],
    [env[`AGENTFORM_TOKEN_${suffix}`], `AGENTFORM_TOKEN_${suffix}`],
    [target.credential?.value, target.credential ? `${target.credential.source} (environments.${target.name}.token)` : ''],
    [env.AGENTFORM_TOKEN, 'AGENTFORM_TOKEN'],
  ];
  const token = tokenCandidates.find(([value]) => value !== undefined && value !== '');
  return {
    url: url[0] as string,
    urlSource: url[1],
    ...(token ? { token: token[0] as string, tokenSource: token[1] } : {}),
  };
}

/**
 * "No credential" for an environment, naming what was looked at: the variable agentform.yaml's
 * `token` reads (unset), the per-environment variable, and the flag.
 */
export function missingCredentialError(target: EnvironmentTarget, env: NodeJS.ProcessEnv): UserError {
  const suffix = environmentVariableSuffix(target.name);
  const configured = target.credential ? /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)/.exec(target.credential.source)?.[1] : undefined;
  if (configured && !env[configured]) {
    return new UserError(
      `no credential for environment ${target.name}: ${configured} is not set`,
      `agentform.yaml reads its token from ${target.credential!.source}; set ${configured}, or AGENTFORM_TOKEN_${suffix}, or pass --token`,
    );
  }
  return new UserError(
    `no credential for environment ${target.name}`,
    `set the token in agentform.yaml (token: \${env:...}), AGENTFORM_TOKEN_${suffix}, or --token`,
  );
}
