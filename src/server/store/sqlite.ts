// better-sqlite3, loaded on first use rather than imported. It is an optional peer dependency (a
// native module, compiled from source where no prebuilt binary fits), which npm never installs on
// its own: a CI job that only talks to a remote Control API installs agentform without a C++
// toolchain, in seconds. (An optional dependency is not enough: npm 11 still builds it on
// `install --global --omit=optional`.) Only the local control plane (`agentform server`,
// `url: local`) needs it, and says so when it is missing.
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { UserError } from '../../errors.js';

export type SqliteConstructor = typeof Database;

const PACKAGE = 'better-sqlite3';

let loaded: SqliteConstructor | undefined;

/** The probe databases, kept reachable: V8 collecting a better-sqlite3 object aborts Node 24 (db.ts, `opened`). */
const probes: unknown[] = [];

/** The local control plane cannot start: better-sqlite3 is missing or cannot load its native module. */
export class SqliteUnavailableError extends UserError {
  override readonly name: string = 'SqliteUnavailableError';
}

/**
 * better-sqlite3's constructor, its native module loaded and checked (an in-memory database opened
 * and closed), or a SqliteUnavailableError naming what to install. `requireModule` is for tests.
 */
export function loadSqlite(requireModule?: (id: string) => unknown): SqliteConstructor {
  if (requireModule) return load(requireModule);
  return (loaded ??= load(createRequire(import.meta.url)));
}

function load(requireModule: (id: string) => unknown): SqliteConstructor {
  let Database: SqliteConstructor;
  try {
    Database = requireModule(PACKAGE) as SqliteConstructor;
  } catch (error) {
    if (isMissing(error)) {
      throw new SqliteUnavailableError(
        `the local control plane (agentform server, url: local) needs ${PACKAGE}, which is not installed`,
        `install it beside agentform: \`npm install ${PACKAGE}\` in the project that has agentform, or \`npm install --global ${PACKAGE}\` for a global agentform; where no prebuilt binary fits Node ${process.versions.node} on ${process.platform}-${process.arch}, that compiles it and needs a C++ toolchain`,
      );
    }
    throw unloadable(error);
  }
  // The package loads its native module on the first open: opened here, so that a package whose
  // build failed or was skipped is reported as such, before the plane creates anything.
  try {
    const probe = new Database(':memory:');
    probes.push(probe);
    probe.close();
  } catch (error) {
    throw unloadable(error);
  }
  return Database;
}

/** Not found at all (not: found, but one of its own requires failed). */
function isMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.startsWith(`Cannot find module '${PACKAGE}'`);
}

function unloadable(error: unknown): SqliteUnavailableError {
  const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  return new SqliteUnavailableError(
    `the local control plane could not load ${PACKAGE} (${reason})`,
    `its native module is missing or was built for another Node.js: run \`npm rebuild ${PACKAGE}\` where agentform is installed (it needs a C++ toolchain where no prebuilt binary fits)`,
  );
}
