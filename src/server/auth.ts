// Who is calling: a bearer API key (bound to one environment; tenancy headers ignored) or a dev
// session cookie (full read+control on its organization; tenancy from x-svc-organization and
// x-svc-environment). Keys are looked up by SHA-256 hash; the key value is never stored.
import type { IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Scope } from '../model/api.js';
import type { Tenancy } from './context.js';
import type { Db } from './store/db.js';
import { ServiceError } from './service-error.js';
import { newId, nowIso, sha256Hex } from './util.js';

export const SESSION_COOKIE = 'agentform_session';
const LAST_USED_GRANULARITY_MS = 60_000;

interface KeyRow {
  id: string;
  environment_id: string;
  organization_id: string;
  scopes: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** A fresh `svc_<env>_<secret>` key value; the secret is hex so it never holds `_`. */
export function mintToken(environmentSlug: string): string {
  return `svc_${environmentSlug}_${randomBytes(24).toString('hex')}`;
}

/** `svc_<env>_` and the first 8 characters of the secret: enough to tell keys of one environment apart. */
export const tokenPrefix = (token: string): string => token.slice(0, token.lastIndexOf('_') + 9);
export const tokenHash = (token: string): string => sha256Hex(token);

export function insertApiKey(
  db: Db,
  input: { environmentId: string; environmentSlug: string; name: string; scopes: string[]; identityScopes?: string[]; spend?: object; expiresAt?: string | null; createdBy: string },
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

function authenticateKey(db: Db, token: string): Tenancy {
  const row = db
    .prepare(
      `SELECT k.id, k.environment_id, e.organization_id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at
       FROM api_keys k JOIN environments e ON e.id = k.environment_id WHERE k.token_hash = ?`,
    )
    .get(tokenHash(token)) as KeyRow | undefined;
  if (!row) throw new ServiceError('unauthenticated', 'unknown API key');
  if (row.revoked_at) throw new ServiceError('unauthenticated', 'the API key has been revoked');
  const now = Date.now();
  if (row.expires_at && Date.parse(row.expires_at) <= now) throw new ServiceError('unauthenticated', 'the API key has expired');
  // Touch lastUsedAt at most once a minute so reads do not all turn into writes.
  if (!row.last_used_at || now - Date.parse(row.last_used_at) > LAST_USED_GRANULARITY_MS) {
    db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(new Date(now).toISOString(), row.id);
  }
  return {
    organizationId: row.organization_id,
    environmentId: row.environment_id,
    keyId: row.id,
    scopes: new Set(JSON.parse(row.scopes) as Scope[]),
    actor: `key:${row.id}`,
  };
}

function authenticateCookie(db: Db, cookie: string, headers: IncomingHttpHeaders): Tenancy {
  const session = db.prepare('SELECT organization_id FROM session_cookies WHERE cookie_hash = ?').get(sha256Hex(cookie)) as
    | { organization_id: string }
    | undefined;
  if (!session) throw new ServiceError('unauthenticated', 'unknown or expired session cookie');
  const orgHeader = single(headers['x-svc-organization']);
  if (orgHeader) {
    const org = db.prepare('SELECT id FROM organizations WHERE slug = ? OR id = ?').get(orgHeader, orgHeader) as { id: string } | undefined;
    if (!org || org.id !== session.organization_id) throw new ServiceError('permission_denied', `the session has no access to organization ${orgHeader}`);
  }
  const tenancy: Tenancy = { organizationId: session.organization_id, scopes: new Set<Scope>(['read', 'control']), actor: 'session' };
  const envHeader = single(headers['x-svc-environment']);
  if (envHeader) {
    const env = db.prepare('SELECT id FROM environments WHERE organization_id = ? AND slug = ?').get(session.organization_id, envHeader) as
      | { id: string }
      | undefined;
    if (!env) throw new ServiceError('not_found', `environment ${envHeader} not found`);
    tenancy.environmentId = env.id;
  }
  return tenancy;
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

/** Mints a session cookie for the organization (dev only); returns the cookie value. */
export function mintSessionCookie(db: Db, organizationId: string): string {
  const value = randomBytes(24).toString('hex');
  db.prepare('INSERT INTO session_cookies (cookie_hash, organization_id, created_at) VALUES (?, ?, ?)').run(sha256Hex(value), organizationId, nowIso());
  return value;
}
