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
const rows = (): string[] => (reader.prepare("SELECT name FROM server_meta WHERE name LIKE 'gc-%' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name);
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

// On a durable (synchronous=FULL) database the group takes the WAL's sync over: COMMIT runs with
// synchronous=NORMAL and the WAL is synced on the thread pool; no answer before that sync.
describe('group commit: the WAL sync off the event loop', () => {
  /** A stand-in for fdatasync that finishes only when the test says so. */
  const heldSyncs = () => {
    const pending: Array<(error: Error | null) => void> = [];
    return { pending, syncWal: (done: (error: Error | null) => void) => void pending.push(done) };
  };
  const settled = async (promise: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> => {
    let state: 'resolved' | 'rejected' | 'pending' = 'pending';
    promise.then(
      () => (state = 'resolved'),
      () => (state = 'rejected'),
    );
    // Let the commit's setImmediate and the promise callbacks run.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    return state;
  };

  it('takes the sync over on a durable database and gives it back on flushGroup', () => {
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    enableGroupCommit(db, heldSyncs());
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    flushGroup(db);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('leaves a normal-durability database alone (no sync asked for)', async () => {
    const normalDir = mkdtempSync(join(tmpdir(), 'agentform-group-commit-normal-'));
    const normal = openDatabase(join(normalDir, 'control-plane.db'), { keys: serverKeySource(normalDir, {}), durability: 'normal' });
    try {
      const syncs = heldSyncs();
      enableGroupCommit(normal, syncs);
      writeTx(normal, () => normal.prepare('INSERT INTO server_meta (name, value) VALUES (?, ?)').run('gc-n', 'x'));
      await committed(normal);
      expect(syncs.pending).toHaveLength(0);
    } finally {
      flushGroup(normal);
      normal.close();
      rmSync(normalDir, { recursive: true, force: true });
    }
  });

  it('committed() settles only once a sync that started after the commit has finished', async () => {
    const syncs = heldSyncs();
    enableGroupCommit(db, syncs);
    insert('gc-a');
    const first = committed(db);
    expect(await settled(first)).toBe('pending');
    // Committed (another connection sees it), not yet synced: no answer yet.
    expect(rows()).toEqual(['gc-a']);
    expect(syncs.pending).toHaveLength(1);
    // The next turn's write starts its own sync: the one under way may not cover it.
    insert('gc-b');
    const second = committed(db);
    await settled(second);
    expect(syncs.pending).toHaveLength(2);
    // A read in between waits for the latest sync (it may have read gc-b).
    const read = committed(db);
    syncs.pending[0]!(null);
    expect(await settled(first)).toBe('resolved');
    expect(await settled(second)).toBe('pending');
    expect(await settled(read)).toBe('pending');
    syncs.pending[1]!(null);
    expect(await settled(second)).toBe('resolved');
    expect(await settled(read)).toBe('resolved');
  });

  it('commits beyond the syncs in flight share the next sync', async () => {
    const syncs = heldSyncs();
    enableGroupCommit(db, syncs);
    const waits: Array<Promise<void>> = [];
    for (const name of ['gc-a', 'gc-b', 'gc-c', 'gc-d']) {
      insert(name);
      waits.push(committed(db));
      await settled(waits[waits.length - 1]!);
    }
    expect(syncs.pending).toHaveLength(2);
    syncs.pending[0]!(null);
    await settled(waits[0]!);
    // gc-c and gc-d waited together; their sync starts now that one slot is free.
    expect(syncs.pending).toHaveLength(3);
    syncs.pending[1]!(null);
    syncs.pending[2]!(null);
    expect(await Promise.all(waits.map(settled))).toEqual(['resolved', 'resolved', 'resolved', 'resolved']);
  });

  it('a write outside writeTx (autocommit) is synced before committed() settles', async () => {
    const syncs = heldSyncs();
    enableGroupCommit(db, syncs);
    db.prepare('INSERT INTO server_meta (name, value) VALUES (?, ?)').run('gc-auto', 'x');
    const done = committed(db);
    expect(await settled(done)).toBe('pending');
    expect(syncs.pending).toHaveLength(1);
    syncs.pending[0]!(null);
    expect(await settled(done)).toBe('resolved');
    // Nothing written since: nothing more to sync.
    expect(await settled(committed(db))).toBe('resolved');
    expect(syncs.pending).toHaveLength(1);
  });

  it('a failed sync fails its requests and every later one (its pages may be lost)', async () => {
    const syncs = heldSyncs();
    enableGroupCommit(db, syncs);
    insert('gc-a');
    const done = committed(db);
    await settled(done);
    syncs.pending[0]!(new Error('EIO: i/o error, fdatasync'));
    await expect(done).rejects.toThrow(/EIO/);
    insert('gc-b');
    await expect(committed(db)).rejects.toThrow(/EIO/);
    // Reads answer the error too: what they read may not be on disk.
    await expect(committed(db)).rejects.toThrow(/EIO/);
  });

  it('with the real fdatasync, a commit is answered', async () => {
    enableGroupCommit(db);
    insert('gc-a');
    await committed(db);
    expect(rows()).toEqual(['gc-a']);
  });
});
