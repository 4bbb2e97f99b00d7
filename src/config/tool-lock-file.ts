// agentform.lock.yaml beside agentform.yaml: read (located errors, checked against
// schemas/agentform.lock.schema.json) and written (one byte-exact form, atomically). It holds tool
// names, annotations and digests only: never a URL, a header or anything from a connection's auth.
// Read through the parse cache (a pack of its own): parsing the lock, with the YAML parser and the
// validators it loads, added time and memory to every plan of a small project, for a file that
// changes only when the tool surface does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProblemsError } from '../errors.js';
import type { LockedConnection, ToolAnnotations, ToolSurfaceLock } from '../model/tool-lock.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { LOCK_FILE } from './files.js';
import { openParseCache, type ParseCache } from './parse-cache.js';
import { ProblemList } from './problems.js';
import { passesSchema } from './schema-errors.js';
import { validators } from './schemas.js';
import { locatedDocuments, parseYamlText, yamlLibrary } from './yaml-source.js';

export { LOCK_FILE } from './files.js';

const HEADER = [
  '# agentform.lock.yaml: the tool surface of each connection, per environment, as its MCP server',
  '# listed it (tool names, annotations with MCP defaults filled in, sha256 of description + input',
  '# schema). Written by `agentform lock` and `agentform apply`; commit it, review its diffs, do not',
  '# edit it by hand. apply refuses to change an agent whose connection no longer matches it.',
].join('\n');

/** The hints in the order the file writes them. */
const HINT_ORDER = ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint'] as const satisfies ReadonlyArray<keyof ToolAnnotations>;

/**
 * The lock in its one serialisation order: environments and connections by name, tools by name
 * (then digest), each tool's keys as name, digest, annotations, the hints alphabetically. Two locks
 * of the same content serialise to the same bytes, whatever order the server listed the tools in.
 */
export function sortedLock(lock: ToolSurfaceLock): ToolSurfaceLock {
  const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const environments: Record<string, Record<string, LockedConnection>> = {};
  for (const environment of Object.keys(lock.environments).sort(byKey)) {
    const connections = lock.environments[environment] as Record<string, LockedConnection>;
    const sorted: Record<string, LockedConnection> = {};
    for (const name of Object.keys(connections).sort(byKey)) {
      const tools = [...(connections[name] as LockedConnection).tools].sort((a, b) => byKey(a.name, b.name) || byKey(a.digest, b.digest));
      sorted[name] = {
        tools: tools.map((tool) => {
          const annotations = {} as ToolAnnotations;
          for (const hint of HINT_ORDER) annotations[hint] = tool.annotations[hint];
          return { name: tool.name, digest: tool.digest, annotations };
        }),
      };
    }
    environments[environment] = sorted;
  }
  return { version: 1, environments };
}

export function lockFilePath(projectDir: string): string {
  return join(projectDir, LOCK_FILE);
}

/** The file's exact text: the header, then the lock in its one order (sortedLock). */
export function toolLockText(lock: ToolSurfaceLock): string {
  return `${HEADER}\n${yamlLibrary().stringify(sortedLock(lock), { lineWidth: 0 })}`;
}

/**
 * Parses a lock file's text; throws a ProblemsError with `file:line:col` locations when it is not
 * YAML or not a lock. `file` is the name shown in messages. With a parse cache, a text it holds is
 * not parsed, nor checked against the schema it passed, again.
 */
export function parseToolLock(file: string, absolutePath: string, text: string, cache?: ParseCache): ToolSurfaceLock {
  const problems = new ProblemList();
  const cached = cache?.get(file, text);
  const parsed = cached?.parsed ?? parseYamlText(file, text);
  for (const problem of parsed.problems) problems.add(problem);
  const documents = locatedDocuments(parsed, absolutePath);
  if (!problems.hasErrors) {
    if (documents.length !== 1) {
      problems.error(`${file} must hold exactly one YAML document, not ${documents.length}`, documents[1]?.locate([]) ?? { file, line: 1, col: 1 });
    } else {
      const document = documents[0]!;
      const valid =
        cached?.schemaValid[0] === true ||
        passesSchema(validators().documents.lock, document.value, 'lock', (path, target) => document.locate(path, target), problems);
      if (!cached) cache?.set(file, text, parsed, [valid]);
    }
  }
  if (problems.hasErrors) {
    throw new ProblemsError(
      `${file} is not a valid tool-surface lock: regenerate it with \`agentform lock --update\` (or restore it from version control)`,
      problems.sorted(),
    );
  }
  return sortedLock(documents[0]!.value as ToolSurfaceLock);
}

/** The project's lock, or undefined when there is no lock file yet. */
export async function readToolLock(projectDir: string): Promise<ToolSurfaceLock | undefined> {
  const path = lockFilePath(projectDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const cache = openParseCache(projectDir, process.env, 'lock');
  try {
    return parseToolLock(LOCK_FILE, path, text, cache);
  } finally {
    cache?.close();
  }
}

/** Writes the lock atomically (a reader sees the old file or the new one, never a part). */
export async function writeToolLock(projectDir: string, lock: ToolSurfaceLock): Promise<void> {
  await writeFileAtomic(lockFilePath(projectDir), toolLockText(lock));
}
