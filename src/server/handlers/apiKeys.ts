// apiKeys.*: keys of the caller's environment. The token is returned once, by create. A
// credential creates only keys with a subset of its own scopes and identity scopes, and within its
// own spend caps and expiry (key-bounds.ts).
import type { ApiKey } from '../../model/api.js';
import { environmentOf } from '../context.js';
import { assertMayGrant, insertApiKey } from '../auth.js';
import { fillDefaults } from '../defaults.js';
import { assertWithinBounds, inheritBounds, type KeyBounds } from '../key-bounds.js';
import type { Db } from '../store/db.js';
import { writeTx } from '../store/db.js';
import { invalid, notFound, ServiceError } from '../service-error.js';
import { nowIso, parseJson } from '../util.js';
import { environmentSlugOf } from './environments.js';
import type { GroupHandlers } from './types.js';

export interface ApiKeyRow {
  id: string;
  environment_id: string;
  name: string;
  prefix: string;
  scopes: string;
  identity_scopes: string;
  spend: string;
  created_by: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    environmentId: row.environment_id,
    name: row.name,
    prefix: row.prefix,
    scopes: parseJson(row.scopes, []),
    identityScopes: parseJson(row.identity_scopes, []),
    spend: parseJson(row.spend, {}),
    createdBy: row.created_by,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    createdAt: row.created_at,
  };
}

function keyRow(db: Db, environmentId: string, id: string): ApiKeyRow {
  const row = db.prepare('SELECT * FROM api_keys WHERE id = ? AND environment_id = ?').get(id, environmentId) as ApiKeyRow | undefined;
  if (!row) throw notFound(`API key ${id}`);
  return row;
}

export function keysOf(db: Db, environmentId: string): ApiKeyRow[] {
  return db.prepare('SELECT * FROM api_keys WHERE environment_id = ? ORDER BY created_at, id').all(environmentId) as ApiKeyRow[];
}

/**
 * A name has one live key (neither revoked nor expired) per environment: two checkouts applying
 * the same key at once made two, and a re-apply had to revoke one. A replacement (a changed key is
 * a new key, the old one revoked once the new one's token is saved) names the key it replaces,
 * which may stay live meanwhile; any other live key of the name is a 409.
 */
function assertNameFree(db: Db, environmentId: string, name: string, replacesKeyId: string | undefined): void {
  const now = Date.now();
  const live = (
    db.prepare('SELECT id, expires_at FROM api_keys WHERE environment_id = ? AND name = ? AND revoked_at IS NULL').all(environmentId, name) as Array<{
      id: string;
      expires_at: string | null;
    }>
  ).filter((row) => row.id !== replacesKeyId && (row.expires_at === null || Date.parse(row.expires_at) > now));
  const taken = live[0];
  if (!taken) return;
  throw new ServiceError(
    'already_exists',
    `key.name: a live key named ${JSON.stringify(name)} already exists in this environment (${taken.id}); revoke it first, or create the new key under another name`,
    {
      field: 'key.name',
      id: taken.id,
    },
  );
}

/** A credential with no key behind it (none today: cookies carry their key's bounds) is held to nothing more than its scopes. */
const NO_BOUNDS: KeyBounds = { spend: {}, expiresAt: null };

export const apiKeys: GroupHandlers<'apiKeys'> = {
  'apiKeys.create': (ctx, body) =>
    writeTx(ctx.db, () => {
      const environmentId = environmentOf(ctx);
      const creator = ctx.tenancy.keyBounds ?? NO_BOUNDS;
      const key = fillDefaults(inheritBounds(body.key, creator), ctx.profile.defaults.apiKey);
      const scopes = [...new Set(key.scopes)];
      assertMayGrant(ctx.tenancy, scopes, key.identityScopes ?? []);
      assertWithinBounds(key, creator);
      if (key.expiresAt && Date.parse(key.expiresAt) <= Date.now()) {
        throw invalid('key.expiresAt', `is already past (${key.expiresAt}): a key must expire in the future`);
      }
      // Checked and inserted in one write transaction: of two creates at once, the second sees the first.
      assertNameFree(ctx.db, environmentId, key.name, ctx.replacesKeyId);
      const { id, token } = insertApiKey(ctx.db, {
        environmentId,
        environmentSlug: environmentSlugOf(ctx.db, environmentId),
        name: key.name,
        scopes,
        identityScopes: key.identityScopes,
        spend: key.spend,
        expiresAt: key.expiresAt,
        createdBy: ctx.tenancy.actor,
      });
      return { key: toApiKey(keyRow(ctx.db, environmentId, id)), token };
    }),
  'apiKeys.revoke': (ctx, body) =>
    writeTx(ctx.db, () => {
      const environmentId = environmentOf(ctx);
      const row = keyRow(ctx.db, environmentId, body.id);
      if (!row.revoked_at) ctx.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(nowIso(), row.id);
      return toApiKey(keyRow(ctx.db, environmentId, body.id));
    }),
  'apiKeys.list': (ctx) => keysOf(ctx.db, environmentOf(ctx)).map(toApiKey),
};
