// Which files make up a project: every *.yaml / *.yml below the root except the root file, the
// lock file and capability test files (*.test.yaml, docs/capability-tests.md), skipping `node_modules/` and every dot-file and dot-directory (`.agentform/`, CI
// files such as `.gitlab-ci.yml` and `.github/`); narrowed by the root's include/exclude globs.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT_FILE = 'agentform.yaml';
export const ROOT_FILE_ALTERNATIVE = 'agentform.yml';
/** The tool-surface lock beside the root file: written by agentform, never a resource file. */
export const LOCK_FILE = 'agentform.lock.yaml';
const DEFAULT_INCLUDE = ['**/*.yaml', '**/*.yml'];
/** Capability test files: assertions for `agentform test`, never resource documents. */
const TEST_FILE = /(^|\/)[^/]+\.test\.ya?ml$/;

export function isTestFile(path: string): boolean {
  return TEST_FILE.test(path);
}

/** A glob (`**`, `*`, `?`) as a regular expression over `/`-separated relative paths. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] as string;
    if (char === '*' && glob[index + 1] === '*') {
      const slash = glob[index + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      index += slash ? 2 : 1;
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else out += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/**
 * Whether a directory entry is never part of a project, at any depth and whatever the include
 * globs say: a dot-name belongs to some other tool (CI, Git, editors, agentform's own `.agentform/`).
 */
export function isSkippedEntry(name: string, isDirectory: boolean): boolean {
  return name.startsWith('.') || (isDirectory && name === 'node_modules');
}

async function walk(dir: string, relative: string, out: string[]): Promise<void> {
  // Synchronous: a project is a few folders, and loading fs/promises would cost every run time.
  const entries = readdirSync(join(dir, relative), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (isSkippedEntry(entry.name, entry.isDirectory())) continue;
    const path = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      await walk(dir, path, out);
    } else if (entry.isFile() && /\.ya?ml$/.test(entry.name)) {
      out.push(path);
    }
  }
}

export async function resourceFiles(dir: string, rootFile: string, include?: readonly string[], exclude?: readonly string[]): Promise<string[]> {
  const all: string[] = [];
  await walk(dir, '', all);
  const includes = (include && include.length > 0 ? include : DEFAULT_INCLUDE).map(globToRegExp);
  const excludes = (exclude ?? []).map(globToRegExp);
  return all.filter(
    (path) =>
      path !== rootFile &&
      path !== LOCK_FILE &&
      !isTestFile(path) &&
      includes.some((pattern) => pattern.test(path)) &&
      !excludes.some((pattern) => pattern.test(path)),
  );
}

/** The capability test files below the root (same walk as resource files; the root's `exclude` applies, `include` does not). */
export async function testFiles(dir: string, exclude?: readonly string[]): Promise<string[]> {
  const all: string[] = [];
  await walk(dir, '', all);
  const excludes = (exclude ?? []).map(globToRegExp);
  return all.filter((path) => isTestFile(path) && !excludes.some((pattern) => pattern.test(path)));
}
