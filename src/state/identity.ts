// Who the current credential is: as much as it may read (organization, environment, key, scopes).
import type { Credential } from '../api/client.js';
import type { RpcCaller } from '../api/operations.js';
import { ApiError } from '../errors.js';
import type { ApiKey } from '../model/api.js';
import type { Identity } from '../model/identity.js';

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
      identity.key = {
        id: key.id,
        name: key.name,
        ...(key.createdAt ? { createdAt: key.createdAt } : {}),
        ...(key.expiresAt ? { expiresAt: key.expiresAt } : {}),
      };
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
