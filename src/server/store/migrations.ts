// Versioned schema of the local control plane's SQLite file. Append a migration; never edit one
// that has shipped: a data dir created by an older build is upgraded step by step on open.
import type Database from 'better-sqlite3';
import type { ConnectionAuth } from '../../model/api.js';
import { plainCopyOf } from '../connection-auth.js';
import { FieldCipher, SEALED_COLUMNS, type SealedField } from './sealed.js';

export interface MigrationContext {
  /** The server key's cipher (resolved, or made, on first use). */
  cipher(): FieldCipher;
  /** Tells the opener that plain-text values were sealed, so their old copies must be wiped. */
  sealed(): void;
}

export interface Migration {
  version: number;
  description: string;
  sql: string;
  /** A data step after `sql`, in the same transaction. */
  run?: (db: Database.Database, context: MigrationContext) => void;
}

/** Seals every plain-text value of the sealed columns (rows written before migration 2). */
function sealPlainValues(db: Database.Database, context: MigrationContext): void {
  for (const [table, columns] of Object.entries(SEALED_COLUMNS)) {
    for (const column of columns) {
      const rows = db.prepare(`SELECT rowid AS r, ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL AND ${column} != ''`).all() as Array<{
        r: number;
        v: string;
      }>;
      const update = db.prepare(`UPDATE ${table} SET ${column} = ? WHERE rowid = ?`);
      for (const row of rows) update.run(context.cipher().seal(`${table}.${column}` as SealedField, row.v), row.r);
      if (rows.length > 0) context.sealed();
    }
  }
}

/**
 * Keeps the plain copy of what reads show beside the sealed auth of every connection already there
 * (migration 3). A row it cannot read (an empty or unparsable auth) keeps none and is read as
 * before: it must not stop the server from starting.
 */
function keepPublicAuth(db: Database.Database, context: MigrationContext): void {
  const rows = db.prepare('SELECT rowid AS r, auth FROM connections').all() as Array<{ r: number; auth: string }>;
  const update = db.prepare('UPDATE connections SET public_auth = ?, public_auth_of = ? WHERE rowid = ?');
  for (const row of rows) {
    const copy = plainCopyOfSealed(context.cipher(), row.auth);
    if (copy !== null) update.run(copy, FieldCipher.stampOf(row.auth), row.r);
  }
}

/** plainCopyOf the auth sealed in `stored`; null for one that does not open or parse. */
function plainCopyOfSealed(cipher: FieldCipher, stored: string): string | null {
  try {
    return plainCopyOf(JSON.parse(cipher.open('connections.auth', stored)) as ConnectionAuth);
  } catch {
    return null;
  }
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'initial schema',
    sql: `
CREATE TABLE organizations (
  id TEXT PRIMARY KEY, slug TEXT NOT NULL UNIQUE, name TEXT NOT NULL, idp_organization_id TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE environments (
  id TEXT PRIMARY KEY, organization_id TEXT NOT NULL REFERENCES organizations(id), slug TEXT NOT NULL,
  name TEXT NOT NULL, kind TEXT NOT NULL, grp TEXT, expires_at TEXT, created_by TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, archived_at TEXT,
  spend TEXT NOT NULL, retention TEXT NOT NULL, UNIQUE (organization_id, slug));
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY, environment_id TEXT NOT NULL REFERENCES environments(id), name TEXT NOT NULL,
  prefix TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, scopes TEXT NOT NULL, identity_scopes TEXT NOT NULL,
  spend TEXT NOT NULL, created_by TEXT NOT NULL, expires_at TEXT, last_used_at TEXT, revoked_at TEXT,
  created_at TEXT NOT NULL);
CREATE TABLE session_cookies (
  cookie_hash TEXT PRIMARY KEY, organization_id TEXT NOT NULL REFERENCES organizations(id), created_at TEXT NOT NULL);
CREATE TABLE agents (
  id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, slug TEXT NOT NULL, created_at TEXT NOT NULL,
  UNIQUE (environment_id, slug));
CREATE TABLE agent_versions (
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE, version INTEGER NOT NULL,
  definition TEXT NOT NULL, definition_hash TEXT NOT NULL, spec_hash TEXT NOT NULL, image_error TEXT,
  promoted_from TEXT, created_at TEXT NOT NULL, PRIMARY KEY (agent_id, version));
CREATE TABLE connections (
  id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, name TEXT NOT NULL, url TEXT, transport TEXT NOT NULL,
  channel TEXT NOT NULL, hooks_url TEXT, auth TEXT NOT NULL, hook_events TEXT NOT NULL, signing_secret TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (environment_id, name));
CREATE TABLE grants (
  id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, connection_id TEXT NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
  identity_scope TEXT NOT NULL, identity_id TEXT NOT NULL, access_token TEXT NOT NULL, refresh_token TEXT,
  status TEXT NOT NULL, error TEXT, expires_at TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  last_used_at TEXT, UNIQUE (connection_id, identity_scope, identity_id));
CREATE TABLE providers (
  id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, base_url TEXT,
  secret TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (environment_id, name));
CREATE TABLE secrets (
  id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (environment_id, name));
CREATE TABLE sandboxes (
  id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, record TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, agent_id TEXT NOT NULL, agent_version INTEGER NOT NULL,
  identity TEXT, created_at TEXT NOT NULL);
CREATE TABLE session_events (
  session_id TEXT NOT NULL REFERENCES sessions(id), seq INTEGER NOT NULL, type TEXT NOT NULL, at TEXT NOT NULL,
  PRIMARY KEY (session_id, seq));
CREATE TABLE pending_tool_calls (
  tool_call_id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id), record TEXT NOT NULL);
CREATE TABLE usage_rows (
  id INTEGER PRIMARY KEY AUTOINCREMENT, environment_id TEXT NOT NULL, key_id TEXT NOT NULL, at TEXT NOT NULL,
  totals TEXT NOT NULL);
CREATE INDEX usage_rows_by_key ON usage_rows (key_id, at);
CREATE TABLE hook_deliveries (
  id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, session_id TEXT NOT NULL, connection_id TEXT NOT NULL,
  connection_name TEXT NOT NULL, event_seq INTEGER NOT NULL, event_type TEXT NOT NULL, status TEXT NOT NULL,
  attempts INTEGER NOT NULL, next_attempt_at TEXT, created_at TEXT NOT NULL, delivered_at TEXT, last_error TEXT,
  payload TEXT NOT NULL);
CREATE INDEX hook_deliveries_due ON hook_deliveries (status, next_attempt_at);
`,
  },
  {
    version: 2,
    description: 'secrets sealed at rest; session cookies bound to the key that minted them',
    // Cookies of version 1 had no parent key, scope or lifetime: they are dropped, not upgraded.
    sql: `
CREATE TABLE server_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
DROP TABLE session_cookies;
CREATE TABLE session_cookies (
  cookie_hash TEXT PRIMARY KEY, key_id TEXT NOT NULL REFERENCES api_keys(id), expires_at TEXT NOT NULL, created_at TEXT NOT NULL);
`,
    run: sealPlainValues,
  },
  {
    version: 3,
    description: 'connections keep what reads show of their auth beside the sealed auth',
    // Listing connections opened (decrypted) every row's auth only to drop its write-only fields,
    // the slowest of a plan's reads. `public_auth` is what reads show of an auth
    // (connection-auth.ts plainCopyOf), NULL for one without a string type;
    // `public_auth_of` is the start of the sealed value it was taken from (its IV and tag): a row
    // whose auth was rewritten without it (by an older build, which leaves the new columns alone)
    // no longer matches, and is read by opening the auth as before. The rows already there get
    // their copy here.
    sql: `
ALTER TABLE connections ADD COLUMN public_auth TEXT;
ALTER TABLE connections ADD COLUMN public_auth_of TEXT;
`,
    run: keepPublicAuth,
  },
];
