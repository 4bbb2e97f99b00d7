// Who is calling: a bearer API key (bound to one environment; tenancy headers ignored) or a dev
// session cookie, which is derived from the API key that minted it: the key's scopes, identity
// scopes and environment, at most COOKIE_TTL_MS and never past the key's expiry, and it stops
// working when that key is revoked. A key whose environment is archived or past its expiresAt is
// refused. Keys are looked up by SHA-256 hash; the key value is never stored.
import type { IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Scope } from '../model/api.js';
import type { Tenancy } from './context.js';
import type { Db } from './store/db.js';
import { credentialsVersion, sameCredentialsVersion, type CredentialsVersion } from './store/credentials-version.js';
import { keyBoundsOf, type KeyBounds } from './key-bounds.js';
import { ServiceError } from './service-error.js';
import { newId, nowIso, sha256Hex } from './util.js';

export const SESSION_COOKIE = 'agentform_session';
export const COOKIE_TTL_MS = 8 * 60 * 60 * 1000;
const LAST_USED_GRANULARITY_MS = 60_000;
/** One answer for an unknown and a revoked key, so a guesser learns nothing from the difference. */
export const INVALID_KEY_MESSAGE = 'unknown or revoked API key';

/** A key with its environment: what deciding whether it may act needs. */
interface KeyRow {
  id: string;
  environment_id: string;
  organization_id: string;
  environment_slug: string;
  environment_archived_at: string | null;
  environment_expires_at: string | null;
  scopes: string;
  identity_scopes: string;
  spend: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

const KEY_SELECT = `SELECT k.id, k.environment_id, e.organization_id, e.slug AS environment_slug, e.archived_at AS environment_archived_at,
  e.expires_at AS environment_expires_at, k.scopes, k.identity_scopes, k.spend, k.expires_at, k.revoked_at, k.last_used_at
  FROM api_keys k JOIN environments e ON e.id = k.environment_id`;

/** A fresh `svc_<env>_<secret>` key value; the secret is hex so it never holds `_`. */
export function mintToken(environmentSlug: string): string {
  return `svc_${environmentSlug}_${randomBytes(24).toString('hex')}`;
}

/** `svc_<env>_` and the first 8 characters of the secret: enough to tell keys of one environment apart. */
export const tokenPrefix = (token: string): string => token.slice(0, token.lastIndexOf('_') + 9);
export const tokenHash = (token: string): string => sha256Hex(token);

export function insertApiKey(
  db: Db,
  input: {
    environmentId: string;
    environmentSlug: string;
    name: string;
    scopes: string[];
    identityScopes?: string[];
    spend?: object;
    expiresAt?: string | null;
    createdBy: string;
  },
): { id: string; token: string } {
  const token = mintToken(input.environmentSlug);
  const id = newId('key');
  db.prepare(
    `INSERT INTO api_keys (id, environment_id, name, prefix, token_hash, scopes, identity_scopes, spend, created_by, expires_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    input.environmentId,
    input.name,
    tokenPrefix(token),
    tokenHash(token),
    JSON.stringify(input.scopes),
    JSON.stringify(input.identityScopes ?? []),
    JSON.stringify(input.spend ?? {}),
    input.createdBy,
    input.expiresAt ?? null,
    nowIso(),
  );
  return { id, token };
}

function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const value = headers.authorization;
  if (!value) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  if (!match) throw new ServiceError('unauthenticated', 'the authorization header must be "Bearer <API key>"');
  return match[1];
}

function sessionCookie(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) return rest.join('=');
  }
  return undefined;
}

/** Refuses a key that may not act now (revoked, expired, or its environment archived or expired). */
function checkKeyUsable(row: KeyRow, now: number, what: string): void {
  if (row.revoked_at) throw new ServiceError('unauthenticated', what === 'API key' ? INVALID_KEY_MESSAGE : `the ${what} was revoked`);
  if (row.expires_at && Date.parse(row.expires_at) <= now) throw new ServiceError('unauthenticated', `the ${what} has expired`);
  if (row.environment_archived_at) {
    throw new ServiceError(
      'unauthenticated',
      `the ${what}'s environment ${row.environment_slug} is archived (since ${row.environment_archived_at}): its keys no longer work`,
    );
  }
  if (row.environment_expires_at && Date.parse(row.environment_expires_at) <= now) {
    throw new ServiceError(
      'unauthenticated',
      `the ${what}'s environment ${row.environment_slug} expired at ${row.environment_expires_at}: its keys no longer work`,
    );
  }
}

/** A key's row with its two JSON columns parsed. */
interface ParsedKey {
  row: KeyRow;
  scopes: Scope[];
  identityScopes: string[];
  bounds: KeyBounds;
}

function parseKey(row: KeyRow): ParsedKey {
  return {
    row,
    scopes: JSON.parse(row.scopes) as Scope[],
    identityScopes: JSON.parse(row.identity_scopes) as string[],
    bounds: keyBoundsOf(row.spend, row.expires_at),
  };
}

/** Sets of their own for each request: a handler holding them cannot change a kept key's. */
function tenancyOfKey({ row, scopes, identityScopes, bounds }: ParsedKey, actor: string): Tenancy {
  return {
    organizationId: row.organization_id,
    environmentId: row.environment_id,
    scopes: new Set(scopes),
    identityScopes: new Set(identityScopes),
    keyBounds: { spend: { ...bounds.spend }, expiresAt: bounds.expiresAt },
    actor,
  };
}

/**
 * Keys already looked up, by token value. A CLI run sends every request with one key, and looking
 * it up (a hash, a join, two JSON columns) was ~30 µs of each request: ~30 ms of the server's CPU
 * in an apply of 1,000 agents. An entry serves only while nothing behind any key has changed since
 * it was read (credentials-version.ts: another process's commit, or this one's write to a key, its
 * environment or organization); expiry is checked on every request all the same. Only keys that
 * exist are kept (an unknown token is looked up every time), at most MAX_CACHED_KEYS.
 */
interface CachedKey extends ParsedKey {
  lastUsedMs: number;
}
const MAX_CACHED_KEYS = 1_000;
const keyCaches = new WeakMap<Db, { version: CredentialsVersion; byToken: Map<string, CachedKey> }>();

function cachedKeys(db: Db): Map<string, CachedKey> {
  const version = credentialsVersion(db);
  let cache = keyCaches.get(db);
  if (!cache || !sameCredentialsVersion(cache.version, version)) {
    cache = { version, byToken: new Map() };
    keyCaches.set(db, cache);
  }
  return cache.byToken;
}

function lookUpKey(db: Db, token: string): CachedKey | undefined {
  const row = db.prepare(`${KEY_SELECT} WHERE k.token_hash = ?`).get(tokenHash(token)) as KeyRow | undefined;
  if (!row) return undefined;
  return { ...parseKey(row), lastUsedMs: row.last_used_at ? Date.parse(row.last_used_at) : Number.NEGATIVE_INFINITY };
}

function authenticateKey(db: Db, token: string): Tenancy {
  let keys = cachedKeys(db);
  const key = keys.get(token) ?? lookUpKey(db, token);
  if (!key) throw new ServiceError('unauthenticated', INVALID_KEY_MESSAGE);
  const { row } = key;
  const now = Date.now();
  checkKeyUsable(row, now, 'API key');
  // Touch lastUsedAt at most once a minute so reads do not all turn into writes.
  if (now - key.lastUsedMs > LAST_USED_GRANULARITY_MS) {
    db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(new Date(now).toISOString(), row.id);
    key.lastUsedMs = now;
    // A write to api_keys: the cache read before it is over, the entry goes into the next one.
    keys = cachedKeys(db);
  }
  if (!keys.has(token)) {
    if (keys.size >= MAX_CACHED_KEYS) keys.clear();
    keys.set(token, key);
  }
  return { ...tenancyOfKey(key, `key:${row.id}`), keyId: row.id };
}

function authenticateCookie(db: Db, cookie: string, headers: IncomingHttpHeaders): Tenancy {
  const session = db.prepare('SELECT key_id, expires_at FROM session_cookies WHERE cookie_hash = ?').get(sha256Hex(cookie)) as
    | { key_id: string; expires_at: string }
    | undefined;
  const now = Date.now();
  if (!session || Date.parse(session.expires_at) <= now) throw new ServiceError('unauthenticated', 'unknown or expired session cookie');
  const row = db.prepare(`${KEY_SELECT} WHERE k.id = ?`).get(session.key_id) as KeyRow;
  checkKeyUsable(row, now, "session cookie's API key");
  const orgHeader = single(headers['x-svc-organization']);
  if (orgHeader) {
    const org = db.prepare('SELECT id FROM organizations WHERE slug = ? OR id = ?').get(orgHeader, orgHeader) as { id: string } | undefined;
    if (!org || org.id !== row.organization_id) throw new ServiceError('permission_denied', `the session has no access to organization ${orgHeader}`);
  }
  // The cookie acts where its key does: naming another environment is refused, not obeyed.
  const envHeader = single(headers['x-svc-environment']);
  if (envHeader && envHeader !== row.environment_slug) {
    throw new ServiceError('permission_denied', `the session cookie is bound to environment ${row.environment_slug}, not ${envHeader}`);
  }
  return tenancyOfKey(parseKey(row), 'session');
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** An API key wins over a cookie; with neither, 401. */
export function authenticate(db: Db, headers: IncomingHttpHeaders): Tenancy {
  const token = bearerToken(headers);
  if (token) return authenticateKey(db, token);
  const cookie = sessionCookie(headers);
  if (cookie) return authenticateCookie(db, cookie, headers);
  throw new ServiceError('unauthenticated', 'missing credentials: send "Authorization: Bearer svc_<env>_<secret>"');
}

export function requireScope(tenancy: Tenancy, scope: Scope, rpc: string): void {
  if (!tenancy.scopes.has(scope)) {
    throw new ServiceError('permission_denied', `${rpc} needs the ${scope} scope, which this credential does not have`, { requiredScope: scope });
  }
}

/**
 * Mints a session cookie (dev only) from the calling API key: same scopes and environment, valid
 * for COOKIE_TTL_MS or until the key expires, whichever is first. Returns the value and its expiry.
 */
export function mintSessionCookie(db: Db, tenancy: Tenancy): { value: string; expiresAt: string } {
  if (!tenancy.keyId) throw new ServiceError('permission_denied', 'a session cookie is minted with an API key, not with another cookie');
  const key = db.prepare('SELECT expires_at FROM api_keys WHERE id = ?').get(tenancy.keyId) as { expires_at: string | null };
  const ttlEnd = Date.now() + COOKIE_TTL_MS;
  const expiresAt = new Date(key.expires_at ? Math.min(ttlEnd, Date.parse(key.expires_at)) : ttlEnd).toISOString();
  const value = randomBytes(24).toString('hex');
  db.prepare('INSERT INTO session_cookies (cookie_hash, key_id, expires_at, created_at) VALUES (?, ?, ?, ?)').run(
    sha256Hex(value),
    tenancy.keyId,
    expiresAt,
    nowIso(),
  );
  return { value, expiresAt };
}

/**
 * Whether a credential may create a key with these scopes and identity scopes: only a subset of
 * its own. No identity scopes means "any identity scope", so a credential limited to some may
 * not create an unlimited key.
 */
export function assertMayGrant(tenancy: Tenancy, scopes: readonly string[], identityScopes: readonly string[]): void {
  const missing = scopes.filter((scope) => !tenancy.scopes.has(scope as Scope));
  if (missing.length > 0) {
    throw new ServiceError('permission_denied', `key.scopes: a credential can only grant scopes it has itself; this one lacks ${missing.join(', ')}`, {
      field: 'key.scopes',
      missingScopes: missing,
    });
  }
  const own = tenancy.identityScopes ?? new Set<string>();
  if (own.size === 0) return;
  const beyond = identityScopes.length === 0 ? ['(any)'] : identityScopes.filter((scope) => !own.has(scope));
  if (beyond.length > 0) {
    throw new ServiceError(
      'permission_denied',
      `key.identityScopes: a credential limited to identity scopes ${[...own].join(', ')} can only grant a subset of them`,
      {
        field: 'key.identityScopes',
        missingIdentityScopes: beyond,
      },
    );
  }
}
