// Opens (and creates or upgrades) the control plane's SQLite file. WAL lets readers run beside a
// writer; busy_timeout makes a second process wait for the write lock instead of failing, so two
// servers on one data dir serialise their writes rather than lose them. synchronous=FULL by
// default: a commit is on disk before it is acknowledged, also across a power loss (see Durability). The file and its WAL/SHM are 0600; sealed columns need the server
// key (sealed.ts), resolved while the migrations hold the write lock.
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { credentialsChanged, writesCredentials } from './credentials-version.js';
import { inGroup } from './group-commit.js';
import { MIGRATIONS, type MigrationContext } from './migrations.js';
import { attachCipher, FieldCipher, ServerSetupError, type ServerKeySource } from './sealed.js';
import { loadSqlite } from './sqlite.js';

export type Db = Database.Database;

const BUSY_TIMEOUT_MS = 10_000;

/**
 * `full` (default): every acknowledged commit survives a power loss; each commit waits for an
 * fsync, so far fewer writes per second. `normal`: a process crash
 * loses nothing, a power loss may lose the last commits (WAL mode keeps the file consistent).
 */
export type Durability = 'full' | 'normal';

export interface OpenDatabaseOptions {
  /** The key that seals secrets at rest (sealed.ts). */
  keys: ServerKeySource;
  /** Default full. */
  durability?: Durability;
}

/**
 * SQLite creates the WAL and SHM files with the database file's permissions, so creating that
 * file 0600 first covers all three; files of an older build (0644) are narrowed on open.
 */
function preparePrivateFiles(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  if (process.platform === 'win32') return;
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path)) chmodSync(path, 0o600);
  }
}

/**
 * Every database this process opened, closed or not: never garbage, and nor is what it holds (its
 * statements, in cachePreparedStatements' cache and better-sqlite3's transaction statements).
 *
 * Why: better-sqlite3 12's objects are node::ObjectWraps, whose destructor, run when V8 collects one,
 * unregisters a cleanup hook from the current Node environment and aborts the process when it finds
 * none. On Node 24, a young-generation collection that found a dead statement aborted there (exit
 * 134, "RemoveEnvironmentCleanupHook ... Assertion failed: (env) != nullptr"): most plans of
 * `url: local` (issue 43). Kept reachable, they are deleted by Node's own cleanup when the process
 * ends, while the environment is still there.
 */
const opened: Db[] = [];

export function openDatabase(file: string, options: OpenDatabaseOptions): Db {
  preparePrivateFiles(file);
  const db = new (loadSqlite())(file);
  opened.push(db);
  // Before any statement is made, so that each one is kept (`opened`).
  cachePreparedStatements(db);
  try {
    // exec, not db.pragma: that makes a statement of its own for each call, dropped at once.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    retryWhileBusy(() => db.exec('PRAGMA journal_mode = WAL'));
    db.exec(`PRAGMA synchronous = ${options.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
    db.exec('PRAGMA foreign_keys = ON');
    const { cipher, sealedNow } = migrate(db, options.keys);
    attachCipher(db, cipher);
    // A migration that sealed plain-text values leaves them in free pages and in the WAL: rebuild
    // the file and empty the WAL so no copy survives.
    if (sealedNow) {
      db.exec('VACUUM');
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    }
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Runs `run`, again while SQLite answers SQLITE_BUSY, for as long as busy_timeout would wait.
 *
 * Why: switching a new file to WAL needs an exclusive lock, and when two connections race for it
 * SQLite answers SQLITE_BUSY at once instead of waiting (waiting could deadlock), busy_timeout or
 * not. Two servers started together on an empty data dir hit it: one of them failed to start with
 * "database is locked" (test/server/persistence.test.ts, once in a CI rehearsal).
 */
export function retryWhileBusy<T>(run: () => T, options: { timeoutMs?: number; pause?: (ms: number) => void; now?: () => number } = {}): T {
  const now = options.now ?? Date.now;
  const pause = options.pause ?? pauseSync;
  const deadline = now() + (options.timeoutMs ?? BUSY_TIMEOUT_MS);
  for (let attempt = 1; ; attempt++) {
    try {
      return run();
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== 'SQLITE_BUSY' || now() >= deadline) throw error;
      pause(Math.min(100, 5 * attempt));
    }
  }
}

/** Blocks the thread: opening the store is synchronous, and nothing else may run meanwhile. */
function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Compiling SQL was the largest cost of a request (every handler prepares its statements). A
 * statement is reusable once prepared, so keep one per SQL text, for as long as the process runs. No handler uses the stateful
 * modes (pluck, raw, expand) that would make a shared statement behave differently per caller.
 * A statement (or exec'd SQL) that writes the tables behind an API key reports each run
 * (credentials-version.ts).
 */
function cachePreparedStatements(db: Db): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      // Never dropped, not even past a bound: a dropped statement is collected, which aborts Node 24
      // (`opened`). The SQL texts are a fixed set (the migrations' few one-off texts included).
      statement = prepare(sql);
      if (writesCredentials(sql)) reportingCredentialWrites(db, statement);
      cache.set(sql, statement);
    }
    return statement;
  }) as Db['prepare'];
  const exec = db.exec.bind(db);
  db.exec = ((sql: string) => {
    try {
      return exec(sql);
    } finally {
      if (writesCredentials(sql)) credentialsChanged(db);
    }
  }) as Db['exec'];
}

function reportingCredentialWrites(db: Db, statement: Database.Statement): void {
  const run = statement.run.bind(statement);
  statement.run = ((...params: unknown[]) => {
    try {
      return run(...params);
    } finally {
      credentialsChanged(db);
    }
  }) as Database.Statement['run'];
}

/**
 * The database remembers which key sealed it (its keyId): a start with no key, or another key,
 * is refused rather than making values nobody can open. A database without a key gets one.
 */
function resolveCipher(db: Db, keys: ServerKeySource): FieldCipher {
  const stored = db.prepare("SELECT value FROM server_meta WHERE name = 'key_id'").get() as { value: string } | undefined;
  const existing = keys.existing();
  if (stored) {
    if (!existing)
      throw new ServerSetupError(
        `the database's secrets are sealed with a server key that is missing: restore ${keys.where} (or set the AGENTFORM_SERVER_KEY it was started with)`,
      );
    const cipher = new FieldCipher(existing);
    if (cipher.keyId !== stored.value) throw new ServerSetupError(`the server key from ${keys.where} is not the one this database's secrets are sealed with`);
    return cipher;
  }
  const cipher = new FieldCipher(existing ?? keys.create());
  db.prepare("INSERT INTO server_meta (name, value) VALUES ('key_id', ?)").run(cipher.keyId);
  return cipher;
}

function migrate(db: Db, keys: ServerKeySource): { cipher: FieldCipher; sealedNow: boolean } {
  // IMMEDIATE: two processes opening a fresh file at once must not both apply migration 1 (nor
  // both make a key).
  return db
    .transaction(() => {
      db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)');
      const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((r) => r.version));
      let cipher: FieldCipher | undefined;
      let sealedNow = false;
      const context: MigrationContext = {
        cipher: () => (cipher ??= resolveCipher(db, keys)),
        sealed: () => {
          sealedNow = true;
        },
      };
      for (const migration of MIGRATIONS) {
        if (applied.has(migration.version)) continue;
        db.exec(migration.sql);
        migration.run?.(db, context);
        db.prepare('INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)').run(
          migration.version,
          migration.description,
          new Date().toISOString(),
        );
      }
      return { cipher: context.cipher(), sealedNow };
    })
    .immediate();
}

/**
 * Runs `fn` in a write transaction that takes the lock up front (no upgrade deadlocks); in a
 * running server, inside the turn's group commit (group-commit.ts).
 */
export function writeTx<T>(db: Db, fn: () => T): T {
  const grouped = inGroup(db, fn);
  if (grouped) return grouped.value;
  try {
    return db.transaction(fn).immediate();
  } catch (error) {
    // Rolled back: whatever it wrote behind a key is undone.
    credentialsChanged(db);
    throw error;
  }
}
