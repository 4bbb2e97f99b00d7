// organizations.*: organization level; the environment header has no effect.
import type { Organization } from '../../model/api.js';
import type { Db } from '../store/db.js';
import { writeTx } from '../store/db.js';
import { notFound } from '../service-error.js';
import { nowIso } from '../util.js';
import type { GroupHandlers } from './types.js';

interface OrganizationRow {
  id: string;
  slug: string;
  name: string;
  idp_organization_id: string | null;
  created_at: string;
  updated_at: string;
}

export function getOrganization(db: Db, id: string): Organization {
  const row = db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as OrganizationRow | undefined;
  if (!row) throw notFound(`organization ${id}`);
  return { id: row.id, slug: row.slug, name: row.name, idpOrganizationId: row.idp_organization_id, createdAt: row.created_at, updatedAt: row.updated_at };
}

export const organizations: GroupHandlers<'organizations'> = {
  'organizations.get': (ctx) => getOrganization(ctx.db, ctx.tenancy.organizationId),
  'organizations.update': (ctx, body) =>
    writeTx(ctx.db, () => {
      ctx.db.prepare('UPDATE organizations SET name = ?, updated_at = ? WHERE id = ?').run(body.name, nowIso(), ctx.tenancy.organizationId);
      return getOrganization(ctx.db, ctx.tenancy.organizationId);
    }),
};
