// Whether anything that decides if an API key may act can have changed since a given moment: the
// auth cache (auth.ts) keeps a key it has looked up only for as long as this says nothing has.
//
// Two sources of change: another connection's commit (another server process on the same data
// dir), which SQLite's `PRAGMA data_version` reports, and this connection's own writes to the
// tables behind a key, which data_version does not see: every statement that writes one of those
// tables counts itself here when it runs (db.ts marks them as they are prepared), and so does a
// group that rolls back (what it wrote, and what was read meanwhile, is gone).
import type Database from 'better-sqlite3';

type Db = Database.Database;

/** The tables a key's usability is read from (auth.ts KEY_SELECT): api keys, their environments, organizations. */
const CREDENTIAL_WRITE = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b[\s\S]*?\b(?:api_keys|environments|organizations)\b/i;

export function writesCredentials(sql: string): boolean {
  return CREDENTIAL_WRITE.test(sql);
}

/** This connection's own credential writes and rollbacks, counted. */
const localChanges = new WeakMap<Db, number>();

/** Call after this connection wrote (or undid writes to) the tables behind a key. */
export function credentialsChanged(db: Db): void {
  localChanges.set(db, (localChanges.get(db) ?? 0) + 1);
}

export interface CredentialsVersion {
  readonly local: number;
  readonly dataVersion: number;
}

/** Now's version; two equal versions mean nothing behind any key changed in between. */
export function credentialsVersion(db: Db): CredentialsVersion {
  // Prepared once: db.ts keeps one statement per SQL text.
  const row = db.prepare('PRAGMA data_version').get() as { data_version: number };
  return { local: localChanges.get(db) ?? 0, dataVersion: row.data_version };
}

export function sameCredentialsVersion(a: CredentialsVersion, b: CredentialsVersion): boolean {
  return a.local === b.local && a.dataVersion === b.dataVersion;
}
