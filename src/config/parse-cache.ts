// A content-addressed cache of parsed YAML files: the same text (same file name, same parser)
// always parses to the same ParsedFile, so a file that did not change since the last run is read
// back as JSON instead of being parsed again, which was a large part of a no-change plan.
//
// - Key: the file's name; the entry keeps the text it was made from, and the pack what made its
//   entries: the parser (the code of yaml-source and yaml-plain, the yaml package's version, whether
//   AGENTFORM_YAML_PARSER=library turned the plain parser off) and the schemas
//   (schemaSources: their texts, ajv's version and setup). Both are compared byte for byte, so an
//   edit, a rename, a new build of the parser or other schemas is a miss. Not digests: hashing costs
//   a small plan more than comparing, if only to load node:crypto (util/sha256.ts).
// - Each document also records whether it passed its schema without a warning: the same text
//   checked against the same schemas passes again, so a run that reads it back does not check it
//   again, nor load the validators for it (much generated code, with its time and peak memory).
//   A document with errors or warnings is checked every run.
// - Only files without any problem are stored, and only when their data survives JSON exactly
//   (no NaN, Infinity, -0 or dates): anything else is parsed every time, as before.
// - Where: $AGENTFORM_PARSE_CACHE, else the project's .agentform/cache/parse (local data lives in
//   .agentform/, which init git-ignores); directory 0700 and files 0600, since an entry holds the file's data
//   (the same data the project file holds; values from ${env:...} are never in it, interpolation
//   comes later). AGENTFORM_PARSE_CACHE=off turns it off. Any failure to read or write the cache is
//   ignored: it can only make a run slower, never different.
// - How: one pack file per project (parse-cache-pack.ts) holding the entries of the files the last run read,
//   written again, whole, by a run that had to parse anything. Not a file per YAML file: creating
//   many files is slow on a fresh checkout, and a warm run would open them all where it reads one.
//   A warm run writes nothing.
import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKS, parseCachePack, type PackName } from './parse-cache-dir.js';
import { openPack, PackWriter, type Pack, type PackEntry } from './parse-cache-pack.js';
import { schemaSources } from './schemas.js';
import { PLAIN_PARSER_MODULE_URL } from './yaml-plain.js';
import { PARSER_MODULE_URL, type ParsedDocument, type ParsedFile, yamlParser } from './yaml-source.js';
import { installedVersion } from '../util/package-version.js';

const FORMAT = 5;
/** Packs not written for this long are removed, now and then, when another is written. */
const MAX_AGE_MS = 14 * 24 * 3600 * 1000;

interface Entry {
  format: number;
  file: string;
  lineStarts: number[];
  documents: Array<Omit<ParsedDocument, 'lineStarts'> & { schemaValid: boolean }>;
}

/** A file the cache holds: its parse, and which of its documents passed their schema without a warning when it was stored. */
export interface CachedParse {
  parsed: ParsedFile;
  /**
   * By document: passed the schemas in use, without a warning, when the text was stored (the
   * cache's key names the schemas too). Its check need not run again.
   */
  schemaValid: readonly boolean[];
}

export interface ParseCache {
  get(file: string, text: string): CachedParse | undefined;
  /** Stores a file parsed afresh, with whether each of its documents passed its schema without a warning. */
  set(file: string, text: string, parsed: ParsedFile, schemaValid: readonly boolean[]): void;
  /** Ends the run: writes the new pack if anything was parsed, and lets go of the old one. */
  close(): void;
}

let parser: string | undefined;
/** The code that turns text into a ParsedFile: the files yaml-source's and yaml-plain's code is in, and yaml's version. */
function parserSource(): string {
  if (parser === undefined) {
    // One file in the bundle, two under tsc and vitest.
    const modules = [...new Set([PARSER_MODULE_URL, PLAIN_PARSER_MODULE_URL])];
    const source = modules.map((url) => readFileSync(fileURLToPath(url), 'utf8')).join('\0');
    parser = `${FORMAT}\0${installedVersion('yaml', import.meta.url)}\0${source}`;
  }
  return parser;
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

/** The project's parse cache: `pack` names which of its packs (parse-cache-dir.ts). */
export function openParseCache(projectDir: string, env: NodeJS.ProcessEnv = process.env, packName: PackName = 'project'): ParseCache | undefined {
  const path = parseCachePack(env, projectDir, packName);
  if (path === undefined) return undefined;
  const dir = dirname(path);
  // What made the entries: the parser, and the schemas their documents passed (or not).
  let identity: Buffer | undefined;
  const madeBy = (): Buffer => (identity ??= Buffer.from(`${parserSource()}\0${yamlParser(env)}\0${schemaSources()}`, 'utf8'));
  // The last run's pack, opened on the first lookup; undefined once known to be missing or unreadable.
  let previous: Pack | undefined | null = null;
  const pack = (): Pack | undefined => {
    if (previous === null) previous = openPack(path, madeBy());
    return previous;
  };
  // The entries this run read, in order, for the new pack if one is written.
  const read: string[] = [];
  let writer: PackWriter | undefined;
  let failed = false;
  // A cache that cannot be written (read-only home, full disk) only costs time: the run goes on
  // without writing a pack.
  const giveUpWriting = () => {
    writer?.abandon();
    writer = undefined;
    failed = true;
  };
  const startWriting = (): PackWriter | undefined => {
    if (writer || failed) return writer;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writer = new PackWriter(path, madeBy());
      // The entries read so far go into the new pack too: it holds every file of this run.
      const old = pack();
      for (const key of read) {
        const entry = old?.read(key);
        if (entry) writer.append(key, entry);
      }
    } catch {
      giveUpWriting();
    }
    return writer;
  };
  return {
    get(file, text) {
      try {
        const fromWriter = writer?.has(file) === true;
        const stored: PackEntry | undefined = fromWriter ? writer?.read(file) : pack()?.read(file);
        if (stored === undefined || !stored.text.equals(Buffer.from(text, 'utf8'))) return undefined;
        const entry = JSON.parse(stored.json.toString('utf8')) as Entry;
        if (entry.format !== FORMAT || entry.file !== file) return undefined;
        if (!fromWriter) {
          read.push(file);
          try {
            writer?.append(file, stored);
          } catch {
            giveUpWriting();
          }
        }
        // Spelled out, not spread: V8 gave each spread copy a hidden class of its own (one per document).
        const documents = entry.documents.map(
          (document): ParsedDocument => ({
            value: document.value,
            start: document.start,
            index: document.index,
            nullFree: document.nullFree,
            lineStarts: entry.lineStarts,
          }),
        );
        return { parsed: { file, problems: [], documents }, schemaValid: entry.documents.map((document) => document.schemaValid === true) };
      } catch {
        return undefined;
      }
    },
    set(file, text, parsed, schemaValid) {
      if (parsed.problems.length > 0 || parsed.documents.length === 0) return;
      if (!parsed.documents.every((document) => survivesJson(document.value))) return;
      const documents = parsed.documents.map(({ value, start, index, nullFree }, position) => ({
        value,
        start,
        index,
        nullFree,
        schemaValid: schemaValid[position] === true,
      }));
      const entry: Entry = { format: FORMAT, file, lineStarts: parsed.documents[0]!.lineStarts, documents };
      try {
        startWriting()?.append(file, { text: Buffer.from(text, 'utf8'), json: Buffer.from(JSON.stringify(entry), 'utf8') });
      } catch {
        giveUpWriting();
      }
    },
    close() {
      // The old pack is let go of before the new one is renamed over it (which some systems refuse
      // for a file this process holds open).
      const hadPack = previous !== undefined && previous !== null;
      previous?.close();
      previous = undefined;
      try {
        if (writer) {
          writer.commit();
          // Now and then (a directory shared by many projects holds many packs to look at), and
          // always when this project had none yet (its first run after an upgrade, say).
          if (!hadPack || Math.random() < 0.05) removeOld(dir, new Set(PACKS.map((name) => parseCachePack(env, projectDir, name))));
        }
      } catch {
        writer?.abandon();
      } finally {
        writer = undefined;
      }
    },
  };
}

/**
 * What no run will read again: packs not written for MAX_AGE_MS (but this project's own, `current`),
 * the one-file-per-entry cache of earlier versions (`<sha256>.json`), and temporary files of
 * writers that are gone.
 */
function removeOld(dir: string, current: ReadonlySet<string | undefined>): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (current.has(file)) continue;
    try {
      const legacy = /^[0-9a-f]{64}\.json$/.test(name);
      const deadWriter = PackWriter.isAbandonedTemp(name);
      if (legacy || deadWriter || now - statSync(file).mtimeMs > MAX_AGE_MS) unlinkSync(file);
    } catch {
      // another run removed it first
    }
  }
}
