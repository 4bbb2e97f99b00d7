// Group commit: the writes of requests handled in one turn of the event loop share one SQLite
// transaction, hence one fsync, and no answer leaves before that commit is on disk.
//
// Why: with synchronous=FULL every commit waits for an fsync; an apply at --parallelism 16 sends
// 16 writes at once, which the server then committed one by one, so the fsyncs, not the work, set
// the pace.
// Durability is unchanged: an answer (success or error) is only sent once the transaction that
// holds everything it could have seen is committed (`committed()` below).
//
// How: the first write of a turn opens BEGIN IMMEDIATE and schedules COMMIT with setImmediate
// (after the I/O callbacks of this turn, i.e. after every request whose body arrived together);
// each write runs as a SAVEPOINT inside it, so a failing request rolls back only its own changes.
// The savepoint's statements are prepared once: better-sqlite3's db.transaction(fn) does the same
// thing but builds four wrapper functions and their properties on every call. If COMMIT fails, the
// whole group is rolled back and every request of the group answers with the error.
//
// The fsync stays inside COMMIT, on the event loop: syncing the WAL on the thread pool instead
// freed the main thread but did not shorten an apply, and cost more CPU (smaller groups, hence more
// syncs, plus the thread hand-offs); a blocked loop also lets more writes gather into the next group.
import type Database from 'better-sqlite3';
import { credentialsChanged } from './credentials-version.js';
import { optimizationsOff } from '../../util/optimizations.js';

type Db = Database.Database;
type Statement = Database.Statement;

interface GroupState {
  open: Group | undefined;
  savepoint: Statement;
  release: Statement;
  rollbackTo: Statement;
}

interface Group {
  /** Settles when the open transaction is committed (or failed). */
  done: Promise<void>;
  /** Commits (or, failing, rolls back) now; a second call does nothing. */
  end(): void;
}

const enabled = new WeakMap<Db, GroupState>();

/**
 * From now on, writes through writeTx() on this database are grouped per event-loop turn; under
 * AGENTFORM_OPTIMIZATIONS=off each still commits on its own.
 */
export function enableGroupCommit(db: Db, env: NodeJS.ProcessEnv = process.env): void {
  if (enabled.has(db) || optimizationsOff(env, 'group-commit')) return;
  enabled.set(db, {
    open: undefined,
    savepoint: db.prepare('SAVEPOINT agentform_write'),
    release: db.prepare('RELEASE agentform_write'),
    rollbackTo: db.prepare('ROLLBACK TO agentform_write'),
  });
}

function openGroup(db: Db, state: GroupState): Group {
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
        settle();
      } catch (error) {
        if (db.inTransaction) db.prepare('ROLLBACK').run();
        credentialsChanged(db);
        settle(error);
      }
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
  return { value: inSavepoint(db, state, fn) };
}

/** `fn` inside a savepoint: kept when it returns, undone (and nothing else) when it throws. */
function inSavepoint<T>(db: Db, state: GroupState, fn: () => T): T {
  state.savepoint.run();
  try {
    const value = fn();
    // As db.transaction() refuses one: the work after its first await would run outside the savepoint.
    if (value instanceof Promise) throw new TypeError('a write transaction cannot be async');
    state.release.run();
    return value;
  } catch (error) {
    if (db.inTransaction) {
      state.rollbackTo.run();
      state.release.run();
    }
    credentialsChanged(db);
    throw error;
  }
}

/**
 * Resolves once everything written so far is committed: await it before answering, so that no
 * answer reports (or was computed from) a write that could still be lost.
 */
export function committed(db: Db): Promise<void> {
  return enabled.get(db)?.open?.done ?? Promise.resolve();
}

/** Commits the open group now and stops grouping (before closing the database). */
export function flushGroup(db: Db): void {
  enabled.get(db)?.open?.end();
  enabled.delete(db);
}
