// environments.*: organization level (any environment of the caller's organization).
import type { Environment } from '../../model/api.js';
import type { EnvironmentSettings } from '../../api/operations.js';
import { fillDefaults, type DefaultsTree } from '../defaults.js';
import type { Db } from '../store/db.js';
import { writeTx } from '../store/db.js';
import { alreadyExists, notFound } from '../service-error.js';
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
  ).run(id, organizationId, filled.slug, filled.name, filled.kind, filled.group ?? null, filled.expiresAt ?? null, createdBy, now, now, JSON.stringify(filled.spend), JSON.stringify(filled.retention));
  return toEnvironment(rowBySlug(db, organizationId, input.slug));
}

export const environments: GroupHandlers<'environments'> = {
  'environments.get': (ctx, body) => toEnvironment(rowBySlug(ctx.db, ctx.tenancy.organizationId, body.slug)),
  'environments.list': (ctx) =>
    (ctx.db.prepare('SELECT * FROM environments WHERE organization_id = ? ORDER BY created_at, slug').all(ctx.tenancy.organizationId) as EnvironmentRow[]).map(
      toEnvironment,
    ),
  'environments.create': (ctx, body) => writeTx(ctx.db, () => insertEnvironment(ctx.db, ctx.tenancy.organizationId, body, ctx.tenancy.actor, ctx.profile.defaults.environment)),
  'environments.update': (ctx, body) =>
    writeTx(ctx.db, () => {
      const row = rowBySlug(ctx.db, ctx.tenancy.organizationId, body.slug);
      // Retention and spend are merged field by field: an update names only what changes.
      const spend = body.spend === undefined ? row.spend : JSON.stringify({ ...parseJson(row.spend, {}), ...body.spend });
      const retention = body.retention === undefined ? row.retention : JSON.stringify({ ...parseJson(row.retention, {}), ...body.retention });
      ctx.db
        .prepare('UPDATE environments SET name = ?, kind = ?, grp = ?, expires_at = ?, spend = ?, retention = ?, updated_at = ? WHERE id = ?')
        .run(
          body.name ?? row.name,
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
      if (!row.archived_at) {
        const now = nowIso();
        ctx.db.prepare('UPDATE environments SET archived_at = ?, updated_at = ? WHERE id = ?').run(now, now, row.id);
      }
      return toEnvironment(rowBySlug(ctx.db, ctx.tenancy.organizationId, body.slug));
    }),
};
