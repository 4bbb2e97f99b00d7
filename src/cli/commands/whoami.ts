// `agentform whoami`: which organization, environment and key the current credential acts as.
// Only commander and types load up front; the client loads inside the action.
import type { Command } from 'commander';
import type { Credential } from '../../api/client.js';
import type { RpcCaller } from '../../api/operations.js';
import { ApiError } from '../../errors.js';
import type { ApiKey, Environment, Organization } from '../../model/api.js';
import type { GlobalOptions } from '../global-options.js';
import { renderTable } from '../output.js';
import { addOpsOptions, type OpsOptions } from '../ops-options.js';

export interface Identity {
  /** Null when the credential may not read it (a key without the read scope). */
  organization: Pick<Organization, 'id' | 'slug' | 'name'> | null;
  /** The environment the credential acts on; null when it cannot be known (a cookie without AGENTFORM_ENVIRONMENT). */
  environment: (Pick<Environment, 'slug'> & Partial<Pick<Environment, 'id' | 'name' | 'kind'>>) | null;
  credential: 'api-key' | 'cookie';
  /** The key as apiKeys.list shows it (never its token); null when it could not be found. */
  key: Pick<ApiKey, 'id' | 'name'> & Partial<Pick<ApiKey, 'expiresAt' | 'createdAt'>> | null;
  /** The key's scopes; null when unknown (list denied, missing, or the key not in it). */
  scopes: string[] | null;
  /** Why something is unknown, for a person to read. */
  notes: string[];
}

export function register(program: Command): void {
  const command = program
    .command('whoami')
    .description('show the organization, environment, key and scopes of the current credential')
    .option('--json', 'print the identity as JSON');
  // -e/--dir like the operations commands: inside a project, whoami speaks for its environment.
  addOpsOptions(command, { json: false }).action(async (options: OpsOptions, actionCommand: Command) => {
      const [{ openProjectOrDirect }, { printJson }] = await Promise.all([import('../../connect/project.js'), import('../output.js')]);
      const connected = await openProjectOrDirect(options, actionCommand.optsWithGlobals<GlobalOptions>());
      try {
        const identity = await describeIdentity(connected.client, connected.credential, connected.environment);
        if (options.json) printJson(identity);
        else process.stdout.write(`${renderIdentity(identity)}\n`);
      } finally {
        await connected.close();
      }
    });
}

/**
 * Learns as much as the credential may read. A rejected credential fails; a key that may not read
 * (control does not imply read) is still described, as far as its format tells.
 */
export async function describeIdentity(caller: RpcCaller, credential: Credential, environmentSlug: string | undefined): Promise<Identity> {
  const notes: string[] = [];
  let organization: Identity['organization'] = null;
  try {
    const org = await caller.call('organizations.get', undefined);
    organization = { id: org.id, slug: org.slug, name: org.name };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'permission_denied') throw error;
    notes.push(`organization unknown: ${reason(error)}`);
  }
  const identity: Identity = {
    organization,
    environment: null,
    credential: credential.kind === 'key' ? 'api-key' : 'cookie',
    key: null,
    scopes: null,
    notes,
  };

  if (environmentSlug && !organization) {
    // Every read is denied alike: the slug the key names is all there is to say.
    identity.environment = { slug: environmentSlug };
  } else if (environmentSlug) {
    try {
      const env = await caller.call('environments.get', { slug: environmentSlug });
      identity.environment = { slug: env.slug, id: env.id, ...(env.name ? { name: env.name } : {}), ...(env.kind ? { kind: env.kind } : {}) };
    } catch (error) {
      identity.environment = { slug: environmentSlug };
      notes.push(`environment ${environmentSlug}: ${reason(error)}`);
    }
  } else {
    notes.push('environment unknown: a session cookie names none (set AGENTFORM_ENVIRONMENT)');
  }

  if (credential.kind === 'cookie') {
    notes.push('scopes do not apply to a session cookie');
    return identity;
  }
  if (!organization) {
    // organizations.get needs only the read scope, so the key lacks it; what else it holds cannot
    // be read without it, and is not probed with a control operation (those write).
    notes.push('scopes unknown: the key may not call read operations (it may hold control only)');
    return identity;
  }
  try {
    const keys = await caller.call('apiKeys.list', {});
    const key = keyOfToken(keys, credential.token);
    if (key) {
      identity.key = { id: key.id, name: key.name, ...(key.createdAt ? { createdAt: key.createdAt } : {}), ...(key.expiresAt ? { expiresAt: key.expiresAt } : {}) };
      identity.scopes = [...key.scopes];
    } else {
      notes.push('scopes unknown: the key is not among those apiKeys.list shows');
    }
  } catch (error) {
    notes.push(`scopes unknown: apiKeys.list: ${reason(error)}`);
  }
  return identity;
}

/** The live key whose recognition prefix the token starts with (the longest, should prefixes nest). */
function keyOfToken(keys: ApiKey[], token: string): ApiKey | undefined {
  return keys
    .filter((key) => !key.revokedAt && typeof key.prefix === 'string' && key.prefix.length > 0 && token.startsWith(key.prefix))
    .sort((a, b) => (b.prefix?.length ?? 0) - (a.prefix?.length ?? 0))[0];
}

function reason(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.isUnimplemented) return 'the server does not offer it';
    if (error.code === 'permission_denied') return 'the key may not read it (permission_denied)';
    return `${error.code}: ${error.message}`;
  }
  throw error;
}

export function renderIdentity(identity: Identity): string {
  const { organization, environment, key, scopes } = identity;
  const rows: string[][] = [
    ['organization', organization ? `${organization.name} (${organization.slug}, ${organization.id})` : 'unknown'],
    ['environment', environment ? `${environment.slug}${environment.id ? ` (${environment.id})` : ''}` : 'unknown'],
    ['credential', identity.credential === 'cookie' ? 'session cookie' : key ? `API key ${key.name} (${key.id})` : 'API key'],
    ['scopes', scopes ? scopes.join(', ') || '(none)' : 'unknown'],
  ];
  if (key?.expiresAt) rows.push(['expires', key.expiresAt]);
  return [renderTable(['FIELD', 'VALUE'], rows), ...identity.notes.map((note) => `note: ${note}`)].join('\n');
}
