// Group commit (store/group-commit.ts): writes of one event-loop turn share one transaction; each
// rolls back alone on failure; committed() settles only once the rows are on disk (visible to a
// second connection), and the HTTP layer answers only after it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, writeTx, type Db } from '../../src/server/store/db.js';
import { committed, enableGroupCommit, flushGroup } from '../../src/server/store/group-commit.js';
import { serverKeySource } from '../../src/server/store/sealed.js';

let dir: string;
let db: Db;
let reader: Database.Database;
const rows = (): string[] =>
  (reader.prepare("SELECT name FROM server_meta WHERE name LIKE 'gc-%' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name);
const insert = (name: string) => writeTx(db, () => db.prepare('INSERT INTO server_meta (name, value) VALUES (?, ?)').run(name, 'x'));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentform-group-commit-'));
  db = openDatabase(join(dir, 'control-plane.db'), { keys: serverKeySource(dir, {}) });
  reader = new Database(join(dir, 'control-plane.db'), { readonly: true });
});
afterEach(() => {
  reader.close();
  flushGroup(db);
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('group commit', () => {
  it('is off unless enabled: each writeTx commits at once', () => {
    insert('gc-a');
    expect(rows()).toEqual(['gc-a']);
  });

  it('stays off under AGENTFORM_OPTIMIZATIONS=off', () => {
    enableGroupCommit(db, { AGENTFORM_OPTIMIZATIONS: 'off' });
    insert('gc-a');
    expect(rows()).toEqual(['gc-a']);
  });

  it('writes of one turn commit together, and committed() settles only after the commit', async () => {
    enableGroupCommit(db);
    insert('gc-a');
    insert('gc-b');
    const done = committed(db);
    // Not yet on disk: another connection does not see them.
    expect(rows()).toEqual([]);
    await done;
    expect(rows()).toEqual(['gc-a', 'gc-b']);
    // Nothing open any more: committed() is settled at once.
    await expect(committed(db)).resolves.toBeUndefined();
  });

  it('a write that fails rolls back alone; the rest of its group commits', async () => {
    enableGroupCommit(db);
    insert('gc-a');
    expect(() =>
      writeTx(db, () => {
        db.prepare('INSERT INTO server_meta (name, value) VALUES (?, ?)').run('gc-doomed', 'x');
        throw new Error('handler failed');
      }),
    ).toThrow('handler failed');
    expect(() => insert('gc-a')).toThrow(/UNIQUE/);
    insert('gc-c');
    await committed(db);
    expect(rows()).toEqual(['gc-a', 'gc-c']);
  });

  it('refuses an async write, whose work after its first await would escape the savepoint, and undoes it', async () => {
    enableGroupCommit(db);
    insert('gc-a');
    expect(() =>
      writeTx(db, async () => {
        db.prepare('INSERT INTO server_meta (name, value) VALUES (?, ?)').run('gc-async', 'x');
      }),
    ).toThrow(/cannot be async/);
    await committed(db);
    expect(rows()).toEqual(['gc-a']);
  });

  it('flushGroup commits what is open (before the database is closed)', () => {
    enableGroupCommit(db);
    insert('gc-a');
    flushGroup(db);
    expect(rows()).toEqual(['gc-a']);
    insert('gc-b');
    expect(rows()).toEqual(['gc-a', 'gc-b']);
  });

  it('a failed commit fails every request of its group', async () => {
    enableGroupCommit(db);
    insert('gc-a');
    const done = committed(db);
    // A deferred foreign key violated at commit time makes COMMIT itself fail.
    db.pragma('defer_foreign_keys = ON');
    db.exec('CREATE TABLE IF NOT EXISTS gc_parent (id TEXT PRIMARY KEY)');
    db.exec('CREATE TABLE IF NOT EXISTS gc_child (parent TEXT REFERENCES gc_parent(id) DEFERRABLE INITIALLY DEFERRED)');
    db.prepare('INSERT INTO gc_child (parent) VALUES (?)').run('missing');
    await expect(done).rejects.toThrow(/FOREIGN KEY/);
    expect(rows()).toEqual([]);
    expect(db.inTransaction).toBe(false);
  });
});
