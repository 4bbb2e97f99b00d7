// Opens (and creates or upgrades) the control plane's SQLite file. WAL lets readers run beside a
// writer; busy_timeout makes a second process wait for the write lock instead of failing, so two
// servers on one data dir serialise their writes rather than lose them.
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

const BUSY_TIMEOUT_MS = 10_000;

export function openDatabase(file: string): Db {
  const db = new Database(file);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  cachePreparedStatements(db);
  return db;
}

/**
 * Compiling SQL was the largest cost of a request (every handler prepares its statements). A
 * statement is reusable once prepared, so keep one per SQL text. No handler uses the stateful
 * modes (pluck, raw, expand) that would make a shared statement behave differently per caller.
 */
function cachePreparedStatements(db: Db): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      // The SQL texts are a fixed set; the bound only guards against a future dynamic one.
      if (cache.size >= 1_000) cache.clear();
      statement = prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  }) as Db['prepare'];
}

function migrate(db: Db): void {
  // IMMEDIATE: two processes opening a fresh file at once must not both apply migration 1.
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((r) => r.version));
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.description,
        new Date().toISOString(),
      );
    }
  }).immediate();
}

/** Runs `fn` in a write transaction that takes the lock up front (no upgrade deadlocks). */
export function writeTx<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}
