// Where a project's parse cache lives (parse-cache.ts).
import { join, resolve } from 'node:path';
import { nameHash } from '../util/name-hash.js';
import { optimizationsOff } from '../util/optimizations.js';

/** The parse cache's directory for `projectDir`, or undefined when AGENTFORM_PARSE_CACHE (or AGENTFORM_OPTIMIZATIONS) turns it off. */
export function parseCacheDir(env: NodeJS.ProcessEnv, projectDir: string): string | undefined {
  const setting = env.AGENTFORM_PARSE_CACHE?.trim();
  if (setting === 'off' || setting === '0' || setting === 'false' || optimizationsOff(env, 'parse-cache')) return undefined;
  if (setting) return setting;
  return join(projectDir, '.agentform', 'cache', 'parse');
}

/**
 * A project's packs: `project`, its configuration's files (read together, written together), and
 * `lock`, its tool-surface lock (read on its own, by the commands that need it, and rewritten by
 * apply), so that neither's writes drop the other's entries.
 */
export const PACKS = ['project', 'lock'] as const;
export type PackName = (typeof PACKS)[number];

/**
 * The file that holds `projectDir`'s parse cache (parse-cache-pack.ts), or undefined when it is off.
 * In the project's own cache directory, one name: the project may move (a CI cache restored into
 * another checkout path) and still hit. In a directory AGENTFORM_PARSE_CACHE names, which several
 * projects may share, one pack per project directory (named by a hash of its path), so that one's
 * runs do not replace another's.
 */
export function parseCachePack(env: NodeJS.ProcessEnv, projectDir: string, pack: PackName = 'project'): string | undefined {
  const dir = parseCacheDir(env, projectDir);
  if (dir === undefined) return undefined;
  if (!env.AGENTFORM_PARSE_CACHE?.trim()) return join(dir, `${pack}.pack`);
  // Two folders with the same name only take turns at one pack (entries are checked against the text).
  const project = nameHash(resolve(projectDir));
  return join(dir, pack === 'project' ? `${project}.pack` : `${project}.${pack}.pack`);
}
