// connections.grants.*: per-identity credentials of a connection. Access and refresh tokens are
// stored sealed and never returned. Import reports one outcome per submitted grant:
// created | skipped (exists, mode skip_existing) | updated (exists, mode overwrite) | failed.
import type { ConnectionGrant, GrantImportResult } from '../../model/api.js';
import type { RequestOf, Rpc } from '../../api/operations.js';
import { environmentOf } from '../context.js';
import type { Db } from '../store/db.js';
import { writeTx } from '../store/db.js';
import { cipherOf } from '../store/sealed.js';
import { notFound } from '../service-error.js';
import { newId, nowIso } from '../util.js';
import { connectionRow } from './connections.js';
import type { Handlers } from './types.js';

interface GrantRow {
  id: string;
  connection_id: string;
  connection_name: string;
  connection_url: string | null;
  identity_scope: string;
  identity_id: string;
  refresh_token: string | null;
  status: string;
  error: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
}

const GRANT_SELECT = `SELECT g.id, g.connection_id, c.name AS connection_name, c.url AS connection_url, g.identity_scope, g.identity_id,
  g.refresh_token, g.status, g.error, g.expires_at, g.created_at, g.updated_at, g.last_used_at
  FROM grants g JOIN connections c ON c.id = g.connection_id`;

function toGrant(row: GrantRow): ConnectionGrant {
  const grant: ConnectionGrant = {
    id: row.id,
    connectionId: row.connection_id,
    connection: row.connection_name,
    identity: { scope: row.identity_scope, id: row.identity_id, display: row.identity_id, attributes: {} },
    scopes: [],
    status: row.status,
    error: row.error,
    hasRefreshToken: row.refresh_token !== null,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastUsedAt: row.last_used_at,
  };
  if (row.connection_url) grant.resource = row.connection_url;
  return grant;
}

type GrantItem = RequestOf<'connections.grants.import'>['grants'][number] & { refreshToken?: string; expiresAt?: string };

function importOne(db: Db, environmentId: string, connectionId: string, mode: string, item: GrantItem): GrantImportResult {
  const identity = { scope: item.identity.scope, id: item.identity.id };
  if (typeof item.accessToken !== 'string' || item.accessToken === '') {
    return { identity, outcome: 'failed', grantId: null, error: 'accessToken is required' };
  }
  const existing = db
    .prepare('SELECT id FROM grants WHERE connection_id = ? AND identity_scope = ? AND identity_id = ?')
    .get(connectionId, identity.scope, identity.id) as { id: string } | undefined;
  const now = nowIso();
  if (existing && mode === 'skip_existing') return { identity, outcome: 'skipped', grantId: existing.id, error: null };
  const cipher = cipherOf(db);
  const accessToken = cipher.seal('grants.access_token', item.accessToken);
  const refreshToken = cipher.sealNullable('grants.refresh_token', item.refreshToken);
  if (existing) {
    db.prepare("UPDATE grants SET access_token = ?, refresh_token = ?, expires_at = ?, status = 'active', error = NULL, updated_at = ? WHERE id = ?").run(
      accessToken,
      refreshToken,
      item.expiresAt ?? null,
      now,
      existing.id,
    );
    return { identity, outcome: 'updated', grantId: existing.id, error: null };
  }
  const id = newId('grt');
  db.prepare(
    `INSERT INTO grants (id, environment_id, connection_id, identity_scope, identity_id, access_token, refresh_token, status, expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)`,
  ).run(id, environmentId, connectionId, identity.scope, identity.id, accessToken, refreshToken, item.expiresAt ?? null, now, now);
  return { identity, outcome: 'created', grantId: id, error: null };
}

export const grants: Handlers<Extract<Rpc, `connections.grants.${string}`>> = {
  'connections.grants.import': (ctx, body) =>
    writeTx(ctx.db, () => {
      const environmentId = environmentOf(ctx);
      const connection = connectionRow(ctx.db, environmentId, body.connectionId);
      return { results: body.grants.map((item) => importOne(ctx.db, environmentId, connection.id, body.mode, item)) };
    }),
  'connections.grants.list': (ctx) =>
    (ctx.db.prepare(`${GRANT_SELECT} WHERE g.environment_id = ? ORDER BY c.name, g.identity_scope, g.identity_id`).all(environmentOf(ctx)) as GrantRow[]).map(
      toGrant,
    ),
  'connections.grants.delete': (ctx, body) =>
    writeTx(ctx.db, () => {
      const result = ctx.db.prepare('DELETE FROM grants WHERE id = ? AND environment_id = ?').run(body.id, environmentOf(ctx));
      if (result.changes === 0) throw notFound(`grant ${body.id}`);
    }),
};
