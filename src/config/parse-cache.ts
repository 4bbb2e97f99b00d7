// A content-addressed cache of parsed YAML files: the same text (same file name, same parser)
// always parses to the same ParsedFile, so a file that did not change since the last run is read
// back as JSON (~1 ms per 100 agents) instead of being parsed again (~30 ms per 100 agents cold;
// parsing was half of a no-change plan of 1,000 agents).
//
// - Key: sha256 of the parser's identity (the code of yaml-source and the yaml package's version)
//   and the file's name and text; an edit, a rename or a new build of the parser is a miss.
// - Only files without any problem are stored, and only when their data survives JSON exactly
//   (no NaN, Infinity, -0 or dates): anything else is parsed every time, as before.
// - Where: $AGENTFORM_PARSE_CACHE, else the project's .agentform/cache/parse (local data lives in
//   .agentform/, which init git-ignores); directory 0700 and files 0600, since an entry holds the file's data
//   (the same data the project file holds; values from ${env:...} are never in it, interpolation
//   comes later). AGENTFORM_PARSE_CACHE=off turns it off. Any failure to read or write the cache is
//   ignored: it can only make a run slower, never different.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCacheDir } from './parse-cache-dir.js';
import { PARSER_MODULE_URL, type ParsedDocument, type ParsedFile } from './yaml-source.js';
import { installedVersion } from '../util/package-version.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';

const FORMAT = 2;
/** Entries not written for this long are removed, now and then, when another is written. */
const MAX_AGE_MS = 14 * 24 * 3600 * 1000;

interface Entry {
  format: number;
  file: string;
  lineStarts: number[];
  documents: Array<Omit<ParsedDocument, 'lineStarts'>>;
}

export interface ParseCache {
  get(file: string, text: string): ParsedFile | undefined;
  set(file: string, text: string, parsed: ParsedFile): void;
}

let parserIdentity: string | undefined;
/** The code that turns text into a ParsedFile: the file yaml-source's code is in, and yaml's version. */
function parserId(): string {
  if (parserIdentity === undefined) {
    const source = readFileSync(fileURLToPath(PARSER_MODULE_URL), 'utf8');
    const yamlVersion = installedVersion('yaml', import.meta.url);
    parserIdentity = createHash('sha256').update(`${FORMAT}\0${yamlVersion}\0${source}`).digest('hex');
  }
  return parserIdentity;
}

/** True when JSON.parse(JSON.stringify(value)) gives back the same data. */
function survivesJson(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (Array.isArray(value)) return value.every(survivesJson);
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const key in value) if (!survivesJson((value as Record<string, unknown>)[key])) return false;
    return true;
  }
  return false;
}

export function openParseCache(projectDir: string, env: NodeJS.ProcessEnv = process.env): ParseCache | undefined {
  const dir = parseCacheDir(env, projectDir);
  if (!dir) return undefined;
  const keyOf = (file: string, text: string) => createHash('sha256').update(`${parserId()}\0${file}\0${text}`).digest('hex');
  let prepared = false;
  return {
    get(file, text) {
      try {
        const entry = JSON.parse(readFileSync(join(dir, `${keyOf(file, text)}.json`), 'utf8')) as Entry;
        if (entry.format !== FORMAT || entry.file !== file) return undefined;
        // Spelled out, not spread: V8 gave each spread copy a hidden class of its own (one per document).
        const documents = entry.documents.map((document): ParsedDocument => ({ value: document.value, start: document.start, index: document.index, nullFree: document.nullFree, lineStarts: entry.lineStarts }));
        return { file, problems: [], documents };
      } catch {
        return undefined;
      }
    },
    set(file, text, parsed) {
      if (parsed.problems.length > 0 || parsed.documents.length === 0) return;
      if (!parsed.documents.every((document) => survivesJson(document.value))) return;
      try {
        if (!prepared) {
          mkdirSync(dir, { recursive: true, mode: 0o700 });
          prepared = true;
          if (Math.random() < 0.05) removeOld(dir);
        }
        const entry: Entry = { format: FORMAT, file, lineStarts: parsed.documents[0]!.lineStarts, documents: parsed.documents.map(({ lineStarts: _shared, ...rest }) => rest) };
        writeFileAtomicSync(join(dir, `${keyOf(file, text)}.json`), JSON.stringify(entry), { mode: 0o600 });
      } catch {
        // A cache that cannot be written (read-only home, full disk) only costs time.
      }
    },
  };
}

function removeOld(dir: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    try {
      if (now - statSync(join(dir, name)).mtimeMs > MAX_AGE_MS) unlinkSync(join(dir, name));
    } catch {
      // another run removed it first
    }
  }
}
