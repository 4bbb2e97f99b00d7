// secrets.*: named values; the value is write-only (stored sealed) and never returned.
import type { SecretMetadata } from '../../model/api.js';
import { environmentOf } from '../context.js';
import type { Db } from '../store/db.js';
import { writeTx } from '../store/db.js';
import { cipherOf } from '../store/sealed.js';
import { alreadyExists, notFound } from '../service-error.js';
import { newId, nowIso } from '../util.js';
import type { GroupHandlers } from './types.js';

interface SecretRow {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
}

const toMetadata = (row: SecretRow): SecretMetadata => ({ id: row.id, name: row.name, createdAt: row.created_at, updatedAt: row.updated_at });

function secretRow(db: Db, environmentId: string, id: string): SecretRow {
  const row = db.prepare('SELECT id, name, created_at, updated_at FROM secrets WHERE id = ? AND environment_id = ?').get(id, environmentId) as
    | SecretRow
    | undefined;
  if (!row) throw notFound(`secret ${id}`);
  return row;
}

export const secrets: GroupHandlers<'secrets'> = {
  'secrets.create': (ctx, body) =>
    writeTx(ctx.db, () => {
      const environmentId = environmentOf(ctx);
      if (ctx.db.prepare('SELECT 1 FROM secrets WHERE environment_id = ? AND name = ?').get(environmentId, body.name))
        throw alreadyExists(`secret ${body.name}`);
      const id = newId('sec');
      const now = nowIso();
      ctx.db
        .prepare('INSERT INTO secrets (id, environment_id, name, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(id, environmentId, body.name, cipherOf(ctx.db).seal('secrets.value', body.value), now, now);
      return toMetadata(secretRow(ctx.db, environmentId, id));
    }),
  'secrets.list': (ctx) =>
    (ctx.db.prepare('SELECT id, name, created_at, updated_at FROM secrets WHERE environment_id = ? ORDER BY name').all(environmentOf(ctx)) as SecretRow[]).map(
      toMetadata,
    ),
  'secrets.update': (ctx, body) =>
    writeTx(ctx.db, () => {
      const environmentId = environmentOf(ctx);
      const row = secretRow(ctx.db, environmentId, body.id);
      ctx.db.prepare('UPDATE secrets SET value = ?, updated_at = ? WHERE id = ?').run(cipherOf(ctx.db).seal('secrets.value', body.value), nowIso(), row.id);
      return toMetadata(secretRow(ctx.db, environmentId, row.id));
    }),
  'secrets.delete': (ctx, body) =>
    writeTx(ctx.db, () => {
      const row = secretRow(ctx.db, environmentOf(ctx), body.id);
      ctx.db.prepare('DELETE FROM secrets WHERE id = ?').run(row.id);
    }),
};
