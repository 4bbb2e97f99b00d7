// providers.*: model providers. The secret is write-only: stored sealed, reported only as
// hasSecret. It is sent only to the baseUrl it was given for: an update that moves baseUrl must
// send the secret again (or "" for none), else a caller could redirect it to a server of theirs.
import type { ModelProvider } from '../../model/api.js';
import { environmentOf, type HandlerContext } from '../context.js';
import { vendorBaseUrl } from '../pessimistic.js';
import type { Db } from '../store/db.js';
import { writeTx } from '../store/db.js';
import { cipherOf } from '../store/sealed.js';
import { alreadyExists, invalid, notFound, ServiceError } from '../service-error.js';
import { newId, nowIso } from '../util.js';
import type { GroupHandlers } from './types.js';

interface ProviderRow {
  id: string;
  name: string;
  type: string;
  base_url: string | null;
  secret: string | null;
  created_at: string;
  updated_at: string;
}

/** Sealed; an empty secret is stored as none. */
function sealSecret(db: Db, secret: string | null | undefined): string | null {
  return secret ? cipherOf(db).seal('providers.secret', secret) : null;
}

function toProvider(row: ProviderRow): ModelProvider {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    baseUrl: row.base_url,
    hasSecret: row.secret !== null && row.secret !== '',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function providerBy(db: Db, environmentId: string, column: 'id' | 'name', value: string): ProviderRow {
  const row = db.prepare(`SELECT * FROM providers WHERE environment_id = ? AND ${column} = ?`).get(environmentId, value) as ProviderRow | undefined;
  if (!row) throw notFound(`provider ${value}`);
  return row;
}

function assertNameFree(db: Db, environmentId: string, name: string, exceptId?: string): void {
  const row = db.prepare('SELECT id FROM providers WHERE environment_id = ? AND name = ?').get(environmentId, name) as { id: string } | undefined;
  if (row && row.id !== exceptId) throw alreadyExists(`provider ${name}`);
}

/**
 * The baseUrl to store. The pessimistic profile reports an unset baseUrl as the vendor's own
 * endpoint; that endpoint sent back (a client keeping what it read) means "unset" again, so the
 * built-in catalogue stays in use.
 */
function storedBaseUrl(ctx: HandlerContext, type: string, baseUrl: string | null | undefined): string | null | undefined {
  return ctx.profile.name === 'pessimistic' && baseUrl === vendorBaseUrl(type) ? null : baseUrl;
}

export const providers: GroupHandlers<'providers'> = {
  'providers.create': (ctx, body) =>
    writeTx(ctx.db, () => {
      const environmentId = environmentOf(ctx);
      assertNameFree(ctx.db, environmentId, body.name);
      const id = newId('prv');
      const now = nowIso();
      ctx.db
        .prepare('INSERT INTO providers (id, environment_id, name, type, base_url, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(id, environmentId, body.name, body.type, storedBaseUrl(ctx, body.type, body.baseUrl) ?? null, sealSecret(ctx.db, body.secret), now, now);
      return toProvider(providerBy(ctx.db, environmentId, 'id', id));
    }),
  'providers.list': (ctx) =>
    (ctx.db.prepare('SELECT * FROM providers WHERE environment_id = ? ORDER BY name').all(environmentOf(ctx)) as ProviderRow[]).map(toProvider),
  'providers.update': (ctx, body) =>
    writeTx(ctx.db, () => {
      const environmentId = environmentOf(ctx);
      const row = providerBy(ctx.db, environmentId, 'id', body.id);
      if (body.name !== undefined) assertNameFree(ctx.db, environmentId, body.name, row.id);
      const baseUrl = storedBaseUrl(ctx, body.type ?? row.type, body.baseUrl);
      const movesEndpoint = baseUrl !== undefined && baseUrl !== row.base_url;
      if (movesEndpoint && body.secret === undefined && row.secret !== null && row.secret !== '') {
        throw invalid(
          'secret',
          `changing baseUrl needs the secret again: the stored one is never sent to a new endpoint (send the secret for ${baseUrl ?? 'the built-in catalog'}, or "" for none)`,
        );
      }
      ctx.db
        .prepare('UPDATE providers SET name = ?, type = ?, base_url = ?, secret = ?, updated_at = ? WHERE id = ?')
        .run(
          body.name ?? row.name,
          body.type ?? row.type,
          baseUrl === undefined ? row.base_url : baseUrl,
          body.secret === undefined ? row.secret : sealSecret(ctx.db, body.secret),
          nowIso(),
          row.id,
        );
      return toProvider(providerBy(ctx.db, environmentId, 'id', row.id));
    }),
  'providers.delete': (ctx, body) =>
    writeTx(ctx.db, () => {
      const row = providerBy(ctx.db, environmentOf(ctx), 'id', body.id);
      ctx.db.prepare('DELETE FROM providers WHERE id = ?').run(row.id);
    }),
  'providers.models': async (ctx, body) => {
    const row = providerBy(ctx.db, environmentOf(ctx), 'name', body.name);
    const provider: { type: string; baseUrl?: string | null; secret?: string } = { type: row.type, baseUrl: row.base_url };
    const secret = cipherOf(ctx.db).openNullable('providers.secret', row.secret);
    if (secret) provider.secret = secret;
    try {
      return await ctx.services.listModels(provider);
    } catch (err) {
      throw new ServiceError('failed_precondition', `provider ${row.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  },
};
