// connections.* (grants in grants.ts). Names are unique per environment. A connection whose auth
// type is `svc-signed` signs its hook deliveries with `auth.secret` when the caller gives one (so
// the receiver can verify them; docs/local-control-plane.md), else with one generated here.
// Write-only auth fields (tokens, secrets) are never echoed; auth and the signing secret are
// stored sealed.
import type { Connection, ConnectionAuth } from '../../model/api.js';
import type { ConnectionInput } from '../../api/operations.js';
import { plainCopyOf, publicAuth } from '../connection-auth.js';
import { environmentOf } from '../context.js';
import { fillDefaults } from '../defaults.js';
import { generateSigningSecret } from '../hooks/signing.js';
import type { Db } from '../store/db.js';
import { writeTx } from '../store/db.js';
import { cipherOf, FieldCipher } from '../store/sealed.js';
import { alreadyExists, invalid, notFound, ServiceError } from '../service-error.js';
import { newId, nowIso, parseJson } from '../util.js';
import type { Rpc } from '../../api/operations.js';
import type { Handlers } from './types.js';

type ConnectionRpc = Exclude<Extract<Rpc, `connections.${string}`>, `connections.grants.${string}`>;

export interface ConnectionRow {
  id: string;
  environment_id: string;
  name: string;
  url: string | null;
  transport: string;
  channel: string;
  hooks_url: string | null;
  auth: string;
  hook_events: string;
  signing_secret: string | null;
  /** What reads show of the auth (connection-auth.ts plainCopyOf), from the sealed auth whose stamp is public_auth_of. */
  public_auth: string | null;
  public_auth_of: string | null;
  created_at: string;
  updated_at: string;
}

const SIGNED_AUTH_TYPE = 'svc-signed';
/** Shortest `auth.secret` accepted for signing: an HMAC key must not be guessable. */
export const MIN_SIGNING_SECRET_CHARS = 16;

/** The stored (sealed) auth of a connection row. */
export function authOf(db: Db, row: ConnectionRow): ConnectionAuth {
  return parseJson(cipherOf(db).open('connections.auth', row.auth), { type: 'none' });
}

/**
 * The auth a connection shows: the plain copy kept beside the sealed auth when it was taken from
 * that very sealed value, else the public part of the opened auth (a row written before
 * migration 3 that it could not read, one rewritten by an older build since, or one kept by a
 * build that showed more than the type).
 */
function shownAuth(db: Db, row: ConnectionRow): ConnectionAuth {
  if (row.public_auth !== null && row.public_auth_of === FieldCipher.stampOf(row.auth)) {
    return parseJson(row.public_auth, { type: 'none' });
  }
  return publicAuth(authOf(db, row));
}

export function toConnection(db: Db, row: ConnectionRow): Connection {
  const connection: Connection = {
    id: row.id,
    name: row.name,
    transport: row.transport,
    channel: row.channel,
    hooksUrl: row.hooks_url,
    auth: shownAuth(db, row),
    hookEvents: parseJson(row.hook_events, []),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.url !== null) connection.url = row.url;
  return connection;
}

export function connectionRow(db: Db, environmentId: string, id: string): ConnectionRow {
  const row = db.prepare('SELECT * FROM connections WHERE id = ? AND environment_id = ?').get(id, environmentId) as ConnectionRow | undefined;
  if (!row) throw notFound(`connection ${id}`);
  return row;
}

export function connectionsOf(db: Db, environmentId: string): ConnectionRow[] {
  return db.prepare('SELECT * FROM connections WHERE environment_id = ? ORDER BY name').all(environmentId) as ConnectionRow[];
}

function assertNameFree(db: Db, environmentId: string, name: string, exceptId?: string): void {
  const row = db.prepare('SELECT id FROM connections WHERE environment_id = ? AND name = ?').get(environmentId, name) as { id: string } | undefined;
  if (row && row.id !== exceptId) throw alreadyExists(`connection ${name}`);
}

/** The sealed signing secret a connection with `auth` gets: the one supplied, else the one it had, else a new one. */
function signingSecretFor(db: Db, auth: ConnectionAuth, existing: string | null): string | null {
  if (auth.type !== SIGNED_AUTH_TYPE) return null;
  const supplied = auth.secret;
  if (supplied !== undefined) {
    if (typeof supplied !== 'string' || supplied.length < MIN_SIGNING_SECRET_CHARS) {
      throw invalid('auth.secret', `must be a string of at least ${MIN_SIGNING_SECRET_CHARS} characters (the key that signs hook deliveries)`);
    }
    return cipherOf(db).seal('connections.signing_secret', supplied);
  }
  return existing ?? cipherOf(db).seal('connections.signing_secret', generateSigningSecret());
}

/** The auth's three columns: sealed, its plain copy (or null), and the stamp that ties the two. */
function authColumns(db: Db, auth: ConnectionAuth): [sealed: string, publicAuth: string | null, publicAuthOf: string | null] {
  const sealed = cipherOf(db).seal('connections.auth', JSON.stringify(auth));
  const copy = plainCopyOf(auth);
  return [sealed, copy, copy === null ? null : FieldCipher.stampOf(sealed)];
}

export const connections: Handlers<ConnectionRpc> = {
  'connections.create': (ctx, body) =>
    writeTx(ctx.db, () => {
      const environmentId = environmentOf(ctx);
      assertNameFree(ctx.db, environmentId, body.name);
      const filled = fillDefaults<ConnectionInput>(body, ctx.profile.defaults.connection);
      const now = nowIso();
      const id = newId('con');
      ctx.db
        .prepare(
          `INSERT INTO connections (id, environment_id, name, url, transport, channel, hooks_url, auth, public_auth, public_auth_of, hook_events, signing_secret, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          environmentId,
          filled.name,
          filled.url ?? null,
          filled.transport,
          filled.channel,
          filled.hooksUrl ?? null,
          ...authColumns(ctx.db, filled.auth),
          JSON.stringify(filled.hookEvents),
          signingSecretFor(ctx.db, filled.auth, null),
          now,
          now,
        );
      return toConnection(ctx.db, connectionRow(ctx.db, environmentId, id));
    }),
  'connections.list': (ctx) => connectionsOf(ctx.db, environmentOf(ctx)).map((row) => toConnection(ctx.db, row)),
  'connections.update': (ctx, body) =>
    writeTx(ctx.db, () => {
      const environmentId = environmentOf(ctx);
      const row = connectionRow(ctx.db, environmentId, body.id);
      if (body.name !== undefined) assertNameFree(ctx.db, environmentId, body.name, row.id);
      const auth = body.auth ?? authOf(ctx.db, row);
      const defaults = ctx.profile.defaults.connection as { transport?: string; channel?: string; hookEvents?: string[] };
      ctx.db
        .prepare(
          `UPDATE connections SET name = ?, url = ?, transport = ?, channel = ?, hooks_url = ?, auth = ?, public_auth = ?, public_auth_of = ?, hook_events = ?, signing_secret = ?, updated_at = ?
           WHERE id = ?`,
        )
        .run(
          body.name ?? row.name,
          body.url === undefined ? row.url : body.url,
          // An update names only what changes (a patch); `null` resets a field to its default.
          body.transport === null ? (defaults.transport ?? row.transport) : (body.transport ?? row.transport),
          body.channel === null ? (defaults.channel ?? row.channel) : (body.channel ?? row.channel),
          body.hooksUrl === undefined ? row.hooks_url : body.hooksUrl,
          ...authColumns(ctx.db, auth),
          body.hookEvents === undefined ? row.hook_events : JSON.stringify(body.hookEvents ?? defaults.hookEvents ?? []),
          signingSecretFor(ctx.db, auth, row.signing_secret),
          nowIso(),
          row.id,
        );
      return toConnection(ctx.db, connectionRow(ctx.db, environmentId, row.id));
    }),
  'connections.delete': (ctx, body) =>
    writeTx(ctx.db, () => {
      const row = connectionRow(ctx.db, environmentOf(ctx), body.id);
      ctx.db.prepare('DELETE FROM connections WHERE id = ?').run(row.id);
    }),
  'connections.test': async (ctx, body) => {
    const row = connectionRow(ctx.db, environmentOf(ctx), body.id);
    if (!row.url) throw new ServiceError('failed_precondition', `connection ${row.name} has no url to test`);
    try {
      return { tools: await ctx.services.listTools(row.url, { timeoutMs: 10_000 }) };
    } catch (err) {
      throw new ServiceError('failed_precondition', `connection ${row.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  },
};
