import { relative, resolve } from 'node:path';
import { checkSurfaces, connectionIds, describeSurface, isScopeError } from '../../../apply/tool-lock-check.js';
import { LOCK_FILE, lockFilePath, readToolLock, writeToolLock } from '../../../config/tool-lock-file.js';
import { UserError } from '../../../errors.js';
import type { LockedConnection } from '../../../model/tool-lock.js';
import { paletteFor } from '../../../render/palette.js';
import { renderSurfaceDiff } from '../../../render/tool-surface.js';
import { readActualState } from '../../../state/read.js';
import type { GlobalOptions } from '../../global-options.js';
import { openSession, runContext } from '../../../pipeline/session.js';
import { printJson, useColor } from '../../terminal.js';
import type { LockCommandOptions } from './options.js';

/**
 * Reads every connection the environment declares (they must exist: the lock records what the
 * server serves, not what the configuration says) and writes the environment's entry of the lock:
 * exactly its declared connections, other environments untouched. A surface that differs from its
 * entry is written only with --update; without it the run prints the difference, writes nothing,
 * and fails.
 */
export async function runLock(dir: string, options: LockCommandOptions, globals: GlobalOptions): Promise<number> {
  const session = await openSession({ dir: resolve(dir), ...(options.env ? { environment: options.env } : {}) }, runContext(globals));
  try {
    const environment = session.desired.target.name;
    const projectDir = session.desired.projectDir;
    const lock = await readToolLock(projectDir);
    const declared = session.desired.resources
      .filter((resource) => resource.kind === 'connection')
      .map((resource) => resource.name)
      .sort();
    const ids = connectionIds(await readActualState(session.client, session.desired.target.slug, ['connection']));
    const missing = declared.filter((name) => !ids.has(name));
    if (missing.length > 0) {
      throw new UserError(
        `${missing.length === 1 ? 'connection' : 'connections'} ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist in ${environment} yet: the lock records what a connection's server serves`,
        `run \`agentform apply -e ${environment}\` first (it locks the connections its agents use), or \`agentform lock\` after it`,
      );
    }
    let checks;
    try {
      checks = await checkSurfaces(session.client, lock, environment, declared, ids, { readUnlocked: true });
    } catch (error) {
      if (isScopeError(error))
        throw new UserError(
          "agentform lock needs an API key with the control scope: connections.test lists a connection's tools",
          'use the control key of this environment',
        );
      throw error;
    }
    const unreadable = checks.filter((check) => check.status === 'unreadable');
    if (unreadable.length > 0) {
      throw new UserError(
        `cannot read the tools of ${unreadable.map((check) => `connection ${check.connection} (${check.error})`).join(', ')}; nothing was written`,
      ).withCode('tool_surface_unreadable');
    }
    const color = useColor(globals);
    const differing = checks.filter((check) => check.status === 'differs');
    const entries = new Map<string, LockedConnection>();
    for (const check of checks) if (check.live) entries.set(check.connection, check.live);
    const stale = Object.keys(lock?.environments[environment] ?? {})
      .filter((name) => !declared.includes(name))
      .sort();
    const refused = differing.length > 0 && !options.update;
    const status = (name: string) => {
      const check = checks.find((candidate) => candidate.connection === name);
      if (check?.status === 'differs') return options.update ? 'updated' : 'differs';
      return check?.status === 'same' ? 'unchanged' : 'locked';
    };
    const changed = checks.some((check) => check.status !== 'same') || stale.length > 0 || lock === undefined;
    const write = !refused && changed;
    if (write) {
      const environments = { ...(lock?.environments ?? {}), [environment]: Object.fromEntries(entries) };
      await writeToolLock(projectDir, { version: 1, environments });
    }
    const file = relative(process.cwd(), lockFilePath(projectDir)) || LOCK_FILE;
    if (options.json) {
      printJson({
        environment,
        file,
        written: write,
        connections: declared.map((name) => {
          const check = checks.find((candidate) => candidate.connection === name);
          return { connection: name, status: status(name), tools: entries.get(name)?.tools.length ?? 0, ...(check?.diff ? { diff: check.diff } : {}) };
        }),
        removed: stale,
      });
    } else {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      if (declared.length === 0) out(`Environment ${environment} declares no connections.`);
      for (const name of declared) {
        out(`connection ${name}: ${status(name)} (${describeSurface(entries.get(name) as LockedConnection)})`);
      }
      for (const name of stale) out(`connection ${name}: ${refused ? 'would be removed' : 'removed'} (no longer declared in ${environment})`);
      if (differing.length > 0) {
        out('');
        out(`Tool surface differs from ${file}:`);
        for (const check of differing) out(renderSurfaceDiff(check.connection, check.diff!, paletteFor(color)));
      }
      if (write) out(`\nWrote ${file} (environment ${environment}); commit it.`);
      else if (!refused) out(`\n${file} is up to date for ${environment}.`);
    }
    if (refused) {
      throw new UserError(
        `the tool surface of ${differing.map((check) => check.connection).join(', ')} differs from ${file}; nothing was written`,
        `review the difference; to accept it run \`agentform lock --update -e ${environment}\` and commit ${LOCK_FILE}`,
      ).withCode('tool_surface_differs');
    }
    return 0;
  } finally {
    await session.close();
  }
}
