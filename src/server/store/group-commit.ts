// Group commit: the writes of requests handled in one turn of the event loop share one SQLite
// transaction, hence one fsync, and no answer leaves before that commit is on disk.
//
// Why: with synchronous=FULL every commit waits for an fsync (~1.4 ms here, more on slower disks);
// an apply at --parallelism 16 sends 16 writes at once, which the server then committed one by
// one, so the fsyncs, not the work, set the pace (1,000 upserts: ~1.5 s of the server's 2.5 s).
// Durability is unchanged: an answer (success or error) is only sent once the transaction that
// holds everything it could have seen is committed (`committed()` below).
//
// How: the first write of a turn opens BEGIN IMMEDIATE and schedules COMMIT with setImmediate
// (after the I/O callbacks of this turn, i.e. after every request whose body arrived together);
// each write runs as a SAVEPOINT inside it (better-sqlite3 nests db.transaction() that way), so a
// failing request rolls back only its own changes. If COMMIT fails, the whole group is rolled back
// and every request of the group answers with the error.
//
// The fsync off the event loop: SQLite's own fsync at COMMIT (synchronous=FULL) runs on the one
// thread that serves every request, and under a steady stream of writes (an apply at
// --parallelism 16 keeps 16 in flight, arriving one by one) most turns hold one write, so the
// server spent 0.4 s (quiet machine) to 1 s (busy disk) of an apply of 1,000 agents blocked in COMMIT. On a durable (FULL) database in WAL mode
// the grouping takes the sync over: COMMIT runs with synchronous=NORMAL (the WAL frames are
// written, not synced), then the WAL file is fdatasync'ed on libuv's thread pool, and `committed()`
// settles only once an fdatasync that started after the commit has finished. That is what FULL
// does (one sync of the WAL per commit; checkpoints sync the WAL and the database file themselves
// under NORMAL too), so every acknowledged commit still survives a power loss; meanwhile the event
// loop serves other requests meanwhile.
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';

type Db = Database.Database;

interface Group {
  /** Settles when the open transaction is committed and synced (or failed). */
  done: Promise<void>;
  /** Commits (or, failing, rolls back) now; a second call does nothing. */
  end(): void;
}

/** Syncs the WAL off the event loop: a request starts a sync, or joins the next one to start. */
interface WalSync {
  /** Settles once a sync that started after this call has finished. */
  request(): Promise<void>;
  /** The promise of the latest request (settled when nothing is pending). */
  latest: Promise<void>;
  /** total_changes() when the latest sync was requested: a larger count means unsynced autocommits. */
  coveredChanges: number;
  /** Starts no more syncs on the thread pool (requests wait for closeNow). */
  stop(): void;
  /** Syncs what is committed now, synchronously, and hands the sync back to SQLite (flushGroup). */
  closeNow(): void;
}

/**
 * Syncs running at once. An fdatasync covers whatever was written before it started, so a commit
 * need not wait for a sync already under way (which may not cover it) to finish before its own
 * starts; beyond this many, commits join one batch that starts when a running sync ends.
 */
const MAX_SYNCS_IN_FLIGHT = 2;

interface State {
  open: Group | undefined;
  wal: WalSync | undefined;
}

const enabled = new WeakMap<Db, State>();

export interface GroupCommitOptions {
  /** For tests: replaces fdatasync of the WAL file (the callback reports the sync's outcome). */
  syncWal?: (done: (error: Error | null) => void) => void;
}

/**
 * From now on, writes through writeTx() on this database are grouped per event-loop turn. On a
 * file database in WAL mode with synchronous=FULL, the WAL sync moves off the event loop (above).
 */
export function enableGroupCommit(db: Db, options: GroupCommitOptions = {}): void {
  if (enabled.has(db)) return;
  enabled.set(db, { open: undefined, wal: takeOverWalSync(db, options) });
}

function takeOverWalSync(db: Db, options: GroupCommitOptions): WalSync | undefined {
  const synchronous = db.pragma('synchronous', { simple: true }) as number;
  const journal = db.pragma('journal_mode', { simple: true }) as string;
  if (synchronous < 2 || journal !== 'wal' || db.memory) return undefined;
  let fd: number | undefined;
  let sync = options.syncWal;
  if (!sync) {
    // The WAL of an open connection is never unlinked (SQLite removes it only when the last
    // connection closes), so one descriptor serves until flushGroup(). SQLite syncs the directory
    // once after creating the WAL, on its first sync; the data dir is synced here for the same reason.
    fd = openSync(`${db.name}-wal`, 'r+');
    const dir = openSync(dirname(db.name), 'r');
    try {
      fdatasyncSync(dir);
    } catch {
      // Some file systems refuse to sync a directory; SQLite ignores that failure too.
    } finally {
      closeSync(dir);
    }
    const walFd = fd;
    sync = (done) => fdatasync(walFd, done);
  }
  const runSync = sync;
  const totalChanges = db.prepare('SELECT total_changes() AS n');
  const changes = (): number => (totalChanges.get() as { n: number }).n;
  let running = 0;
  let closed = false;
  // A failed sync may have dropped the pages it was to write (Linux reports a writeback error
  // once, then forgets it), so no later sync can vouch for them: every later one fails too.
  let failed: Error | undefined;
  let waiting: { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;
  const closeFd = (): void => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
  const start = (): void => {
    const batch = waiting;
    if (running >= MAX_SYNCS_IN_FLIGHT || !batch || closed) return;
    waiting = undefined;
    if (failed) {
      batch.reject(failed);
      return;
    }
    running += 1;
    runSync((error) => {
      running -= 1;
      if (error) failed = error;
      if (failed) batch.reject(failed);
      else batch.resolve();
      // Closed meanwhile: the descriptor was kept for the syncs still running.
      if (closed) {
        if (running === 0) closeFd();
      } else start();
    });
  };
  db.pragma('synchronous = NORMAL');
  const wal: WalSync = {
    latest: Promise.resolve(),
    coveredChanges: changes(),
    request: () => {
      wal.coveredChanges = changes();
      if (!waiting) {
        let resolve!: () => void;
        let reject!: (error: unknown) => void;
        const promise = new Promise<void>((res, rej) => {
          resolve = res;
          reject = rej;
        });
        // Nobody may be waiting yet; a failed sync must not become an unhandled rejection.
        promise.catch(() => undefined);
        waiting = { promise, resolve, reject };
      }
      const { promise } = waiting;
      wal.latest = promise;
      start();
      return promise;
    },
    stop: () => {
      closed = true;
    },
    closeNow: () => {
      closed = true;
      db.pragma('synchronous = FULL');
      const batch = waiting;
      waiting = undefined;
      // A failure reaches the requests waiting for this sync (their answers say so); the database
      // is closed all the same.
      try {
        if (failed) throw failed;
        if (fd !== undefined) fdatasyncSync(fd);
        batch?.resolve();
      } catch (error) {
        batch?.reject(error);
      } finally {
        // A sync still running on the thread pool keeps the descriptor until it finishes.
        if (running === 0) closeFd();
      }
    },
  };
  return wal;
}

function openGroup(db: Db, state: State): Group {
  db.prepare('BEGIN IMMEDIATE').run();
  let settle!: (error?: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  // Nobody may be waiting yet; a failed group must not become an unhandled rejection.
  done.catch(() => undefined);
  const group: Group = {
    done,
    end: () => {
      if (state.open !== group) return;
      state.open = undefined;
      try {
        db.prepare('COMMIT').run();
      } catch (error) {
        if (db.inTransaction) db.prepare('ROLLBACK').run();
        settle(error);
        return;
      }
      if (state.wal) state.wal.request().then(() => settle(), settle);
      else settle();
    },
  };
  setImmediate(group.end);
  return group;
}

/** Runs `fn` as part of this turn's group; undefined when grouping is off for `db`. */
export function inGroup<T>(db: Db, fn: () => T): { value: T } | undefined {
  const state = enabled.get(db);
  if (!state) return undefined;
  state.open ??= openGroup(db, state);
  return { value: db.transaction(fn)() };
}

/**
 * Resolves once everything written so far is committed (and, where the WAL sync is ours, synced):
 * await it before answering, so that no answer reports (or was computed from) a write that could
 * still be lost. A write made outside writeTx (an autocommit, e.g. a key's lastUsedAt) is seen by
 * its change count and synced before the answer too.
 */
export function committed(db: Db): Promise<void> {
  const state = enabled.get(db);
  if (!state) return Promise.resolve();
  if (state.open) return state.open.done;
  const wal = state.wal;
  if (!wal) return Promise.resolve();
  return wal.coveredChanges === (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n ? wal.latest : wal.request();
}

/** Commits the open group now, syncs it, and stops grouping (before closing the database). */
export function flushGroup(db: Db): void {
  const state = enabled.get(db);
  if (!state) return;
  // No new asynchronous sync from here: the last group's sync is done right here, before the database closes.
  state.wal?.stop();
  state.open?.end();
  enabled.delete(db);
  state.wal?.closeNow();
}
