// better-sqlite3 is optional (src/server/store/sqlite.ts): when it is missing or its native module
// cannot load, the local control plane says what to install instead of Node's "Cannot find module".
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import { loadSqlite, SqliteUnavailableError } from '../../../src/server/store/sqlite.js';

function notFound(id: string): Error {
  return Object.assign(new Error(`Cannot find module '${id}'\nRequire stack:\n- /somewhere/embedded.js`), { code: 'MODULE_NOT_FOUND' });
}

describe('loadSqlite', () => {
  it('returns better-sqlite3 when it loads and opens a database', () => {
    expect(loadSqlite()).toBe(Database);
    expect(loadSqlite((id) => (id === 'better-sqlite3' ? Database : undefined))).toBe(Database);
  });

  it('names the package and how to install it when it is not installed', () => {
    const load = () =>
      loadSqlite((id) => {
        throw notFound(id);
      });
    expect(load).toThrow(SqliteUnavailableError);
    expect(load).toThrow('the local control plane (agentform server, url: local) needs better-sqlite3, which is not installed');
    try {
      load();
    } catch (error) {
      // A user error: one line and a hint, exit 1, no stack trace (src/cli/report-error.ts).
      expect(error).toBeInstanceOf(UserError);
      expect((error as UserError).exitCode).toBe(1);
      expect((error as UserError).hint).toContain('npm install better-sqlite3');
      expect((error as UserError).hint).toContain('npm install --global better-sqlite3');
    }
  });

  it('says rebuild when the package is there but one of its own modules is missing', () => {
    expect(() =>
      loadSqlite(() => {
        throw notFound('bindings');
      }),
    ).toThrow("the local control plane could not load better-sqlite3 (Cannot find module 'bindings')");
  });

  it('says rebuild when the native module cannot be loaded (a skipped or failed build)', () => {
    // biome-ignore lint/complexity/useArrowFunction: called with \`new\`, which an arrow function cannot be
    const withoutBinding = function () {
      throw new Error('Could not locate the bindings file. Tried:\n → /x/build/better_sqlite3.node');
    } as unknown as typeof Database;
    const load = () => loadSqlite(() => withoutBinding);
    expect(load).toThrow(SqliteUnavailableError);
    expect(load).toThrow('the local control plane could not load better-sqlite3 (Could not locate the bindings file. Tried:)');
    expect(() => load()).toThrow(expect.objectContaining({ hint: expect.stringContaining('npm rebuild better-sqlite3') }) as Error);
  });
});
