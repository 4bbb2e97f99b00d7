// environments.*: organization level (any environment of the caller's organization).
import type { Environment } from '../../model/api.js';
import type { EnvironmentSettings } from '../../api/operations.js';
import { fillDefaults, type DefaultsTree } from '../defaults.js';
import type { Db } from '../store/db.js';
import { writeTx } from '../store/db.js';
import type { Tenancy } from '../context.js';
import { alreadyExists, notFound, ServiceError } from '../service-error.js';
import { newId, nowIso, parseJson } from '../util.js';
import type { GroupHandlers } from './types.js';

interface EnvironmentRow {
  id: string;
  organization_id: string;
  slug: string;
  name: string;
  kind: string;
  grp: string | null;
  expires_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  spend: string;
  retention: string;
}

function toEnvironment(row: EnvironmentRow): Environment {
  const env: Environment = {
    id: row.id,
    organizationId: row.organization_id,
    slug: row.slug,
    name: row.name,
    kind: row.kind,
    expiresAt: row.expires_at,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archivedAt: row.archived_at,
    spend: parseJson(row.spend, {}),
    retention: parseJson(row.retention, {}),
  };
  if (row.grp !== null) env.group = row.grp;
  return env;
}

function rowBySlug(db: Db, organizationId: string, slug: string): EnvironmentRow {
  const row = db.prepare('SELECT * FROM environments WHERE organization_id = ? AND slug = ?').get(organizationId, slug) as EnvironmentRow | undefined;
  if (!row) throw notFound(`environment ${slug}`);
  return row;
}

export function environmentSlugOf(db: Db, id: string): string {
  return (db.prepare('SELECT slug FROM environments WHERE id = ?').get(id) as { slug: string }).slug;
}

export function insertEnvironment(
  db: Db,
  organizationId: string,
  input: { slug: string; name: string } & EnvironmentSettings,
  createdBy: string,
  defaults: DefaultsTree,
): Environment {
  const exists = db.prepare('SELECT 1 FROM environments WHERE organization_id = ? AND slug = ?').get(organizationId, input.slug);
  if (exists) throw alreadyExists(`environment ${input.slug}`);
  const filled = fillDefaults(input, defaults);
  const now = nowIso();
  const id = newId('env');
  db.prepare(
    `INSERT INTO environments (id, organization_id, slug, name, kind, grp, expires_at, created_by, created_at, updated_at, spend, retention)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    organizationId,
    filled.slug,
    filled.name,
    filled.kind,
    filled.group ?? null,
    filled.expiresAt ?? null,
    createdBy,
    now,
    now,
    JSON.stringify(filled.spend),
    JSON.stringify(filled.retention),
  );
  return toEnvironment(rowBySlug(db, organizationId, input.slug));
}

/**
 * A stored JSON object patched by a request: absent keeps it, `null` resets it to the default, and
 * inside it each key set is replaced, a key set to `null` reset to its default (or removed).
 */
function patchObject(stored: string, patch: Record<string, number | null> | null | undefined, defaults: Record<string, number>): string {
  if (patch === undefined) return stored;
  if (patch === null) return JSON.stringify(defaults);
  const out: Record<string, number> = { ...parseJson<Record<string, number>>(stored, {}) };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== null) out[key] = value;
    else if (defaults[key] !== undefined) out[key] = defaults[key];
    else delete out[key];
  }
  return JSON.stringify(out);
}

/**
 * Archiving ends every key of the environment, and an update can do as much (an `expiresAt` in the
 * past, a spend cap of 0, a short retention), so only a credential of that environment may do
 * either, or the key that created it while it has no live key of its own (undoing or adjusting
 * one's own create cuts nobody off). The local plane has no organization-level credential; its
 * operator recovers with `agentform server --unarchive <slug>`. Without this, a dev key could lock
 * prod out for good.
 */
function assertOwnEnvironment(db: Db, tenancy: Tenancy, row: EnvironmentRow, rpc: 'environments.archive' | 'environments.update'): void {
  if (tenancy.environmentId === row.id) return;
  const liveKey = db.prepare('SELECT 1 FROM api_keys WHERE environment_id = ? AND revoked_at IS NULL LIMIT 1').get(row.id);
  if (tenancy.keyId && row.created_by === tenancy.actor && !liveKey) return;
  const verb = rpc === 'environments.archive' ? 'archived' : 'changed';
  throw new ServiceError(
    'permission_denied',
    `${rpc}: environment ${row.slug} can only be ${verb} with one of its own credentials, not one of another environment`,
    {
      field: 'slug',
    },
  );
}

export const environments: GroupHandlers<'environments'> = {
  'environments.get': (ctx, body) => toEnvironment(rowBySlug(ctx.db, ctx.tenancy.organizationId, body.slug)),
  'environments.list': (ctx) =>
    (ctx.db.prepare('SELECT * FROM environments WHERE organization_id = ? ORDER BY created_at, slug').all(ctx.tenancy.organizationId) as EnvironmentRow[]).map(
      toEnvironment,
    ),
  'environments.create': (ctx, body) =>
    writeTx(ctx.db, () => insertEnvironment(ctx.db, ctx.tenancy.organizationId, body, ctx.tenancy.actor, ctx.profile.defaults.environment)),
  'environments.update': (ctx, body) =>
    writeTx(ctx.db, () => {
      const row = rowBySlug(ctx.db, ctx.tenancy.organizationId, body.slug);
      assertOwnEnvironment(ctx.db, ctx.tenancy, row, 'environments.update');
      // An update names only what changes (a patch); `null` resets a field to its default. Retention
      // and spend are patched field by field.
      const defaults = ctx.profile.defaults.environment as { spend?: Record<string, number>; retention?: Record<string, number> };
      const spend = patchObject(row.spend, body.spend, defaults.spend ?? {});
      const retention = patchObject(row.retention, body.retention, defaults.retention ?? {});
      ctx.db
        .prepare('UPDATE environments SET name = ?, kind = ?, grp = ?, expires_at = ?, spend = ?, retention = ?, updated_at = ? WHERE id = ?')
        .run(
          body.name === null ? row.slug : (body.name ?? row.name),
          body.kind ?? row.kind,
          body.group === undefined ? row.grp : body.group,
          body.expiresAt === undefined ? row.expires_at : body.expiresAt,
          spend,
          retention,
          nowIso(),
          row.id,
        );
      return toEnvironment(rowBySlug(ctx.db, ctx.tenancy.organizationId, body.slug));
    }),
  'environments.archive': (ctx, body) =>
    writeTx(ctx.db, () => {
      const row = rowBySlug(ctx.db, ctx.tenancy.organizationId, body.slug);
      assertOwnEnvironment(ctx.db, ctx.tenancy, row, 'environments.archive');
      if (!row.archived_at) {
        const now = nowIso();
        ctx.db.prepare('UPDATE environments SET archived_at = ?, updated_at = ? WHERE id = ?').run(now, now, row.id);
      }
      return toEnvironment(rowBySlug(ctx.db, ctx.tenancy.organizationId, body.slug));
    }),
};
