// Opening the store: the retry around switching a new file to WAL, which SQLite refuses at once
// (SQLITE_BUSY, no busy_timeout wait) when two servers start together on an empty data dir; and
// better-sqlite3's objects kept from the garbage collector, whose collecting them aborted Node 24.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { retryWhileBusy } from '../../../src/server/store/db.js';

const busy = (): Error => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

/** A clock that only moves when the retry pauses, and records the pauses. */
function fakeTime() {
  let clock = 0;
  const pauses: number[] = [];
  return { now: () => clock, pause: (ms: number) => (pauses.push(ms), (clock += ms)), pauses };
}

describe('retryWhileBusy', () => {
  it('returns at once when nothing is busy', () => {
    const time = fakeTime();
    expect(retryWhileBusy(() => 'wal', { ...time, timeoutMs: 1_000 })).toBe('wal');
    expect(time.pauses).toEqual([]);
  });

  it('tries again while SQLite answers SQLITE_BUSY, with growing pauses', () => {
    const time = fakeTime();
    let calls = 0;
    const result = retryWhileBusy(
      () => {
        calls++;
        if (calls < 4) throw busy();
        return 'wal';
      },
      { ...time, timeoutMs: 1_000 },
    );
    expect(result).toBe('wal');
    expect(calls).toBe(4);
    expect(time.pauses).toEqual([5, 10, 15]);
  });

  it('gives up with the last SQLITE_BUSY once the timeout has passed', () => {
    const time = fakeTime();
    let calls = 0;
    expect(() =>
      retryWhileBusy(
        () => {
          calls++;
          throw busy();
        },
        { ...time, timeoutMs: 200 },
      ),
    ).toThrow('database is locked');
    expect(time.pauses.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(200);
    expect(time.pauses.every((ms) => ms <= 100)).toBe(true);
    expect(calls).toBe(time.pauses.length + 1);
  });

  it('does not retry any other error', () => {
    const time = fakeTime();
    let calls = 0;
    const corrupt = Object.assign(new Error('file is not a database'), { code: 'SQLITE_NOTADB' });
    expect(() =>
      retryWhileBusy(
        () => {
          calls++;
          throw corrupt;
        },
        { ...time, timeoutMs: 1_000 },
      ),
    ).toThrow('file is not a database');
    expect(calls).toBe(1);
  });

  it('really waits between attempts with the default pause', () => {
    let calls = 0;
    const started = Date.now();
    retryWhileBusy(
      () => {
        calls++;
        if (calls < 3) throw busy();
      },
      { timeoutMs: 1_000 },
    );
    // 5 ms, then 10 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(14);
  });
});

describe('openDatabase', () => {
  // Node 24 aborted (exit 134) when V8 collected a statement or a database of better-sqlite3 12
  // (issue 43); kept reachable, they never are. Observed here through WeakRefs, on any Node.
  it('keeps every database and statement it made from the garbage collector, closed or not', () => {
    const built = (path: string) => JSON.stringify(join(import.meta.dirname, '..', '..', '..', 'dist', 'src', 'server', 'store', path));
    const script = `
      import { mkdtempSync, rmSync } from 'node:fs';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      const { openDatabase } = await import(${built('db.js')});
      const { serverKeySource } = await import(${built('sealed.js')});
      const dir = mkdtempSync(join(tmpdir(), 'agentform-db-'));
      const refs = (() => {
        const db = openDatabase(join(dir, 'control-plane.db'), { keys: serverKeySource(dir, {}) });
        const first = db.prepare('SELECT 0');
        // More SQL texts than the statement cache once held before it started again.
        for (let i = 1; i <= 1100; i++) db.prepare('SELECT ' + i);
        db.close();
        return { db: new WeakRef(db), statement: new WeakRef(first) };
      })();
      // WeakRefs hold their targets to the end of the job that made them.
      setTimeout(() => {
        globalThis.gc();
        globalThis.gc();
        console.log(JSON.stringify({ db: refs.db.deref() !== undefined, statement: refs.statement.deref() !== undefined }));
        rmSync(dir, { recursive: true, force: true });
      }, 0);`;
    const output = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual({ db: true, statement: true });
  });
});
