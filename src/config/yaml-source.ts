// YAML files parsed with source ranges, so every problem can point at the exact key or value.
// Parsing produces plain data (values, an index from JSON path to source offsets, line starts and
// problems); nothing after parsing needs the YAML syntax tree, which is dropped at once.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Document } from 'yaml';
import type { SourceLocation } from '../errors.js';
import type { PathSegment, Problem } from './problems.js';
import { type DocumentIndex, NODE_FIELDS, type ParsedDocument, type ParsedFile } from './parsed-yaml.js';
import { parsePlainYaml } from './yaml-plain.js';
import { type UnclosedOpener, documentMistakes, plainWords, unclosedOpeners } from './yaml-errors.js';
import { SourceText } from './yaml-error-text.js';
import { hasNullField } from '../model/json.js';
import { optimizationsOff } from '../util/optimizations.js';
import type { JsonValue } from '../model/resources.js';

/** One YAML document with a way back from a JSON path to its place in the file. */
export interface LocatedDocument {
  /** File path relative to the project directory, with `/` separators. */
  file: string;
  absolutePath: string;
  /** The plain value of the document (null for an empty document). */
  value: unknown;
  /** Where the node at `path` is: `key` points at the last key, `value` at the value. */
  locate(path: readonly PathSegment[], target?: 'key' | 'value'): SourceLocation;
  /** Whether the document spells out the node at `path`. */
  has(path: readonly PathSegment[]): boolean;
  /** True when no object in the value has a `null` field (withoutNulls would change nothing). */
  nullFree: boolean;
}

export type { DocumentIndex, ParsedDocument, ParsedFile } from './parsed-yaml.js';

// yaml is loaded on the first file the plain parser (yaml-plain.ts) leaves to it: a run whose files
// are plain or come from the parse cache (parse-cache.ts) never loads it. In the bundle it is a file of its own beside this chunk
// (scripts/build.mjs), compiled from its code cache; from node_modules it was many files to load,
// on every run with a file to parse, such as each run on a fresh CI checkout.
// Elsewhere (tsc's output, vitest) it comes from the package.
type YamlModule = typeof import('yaml');
let yamlModule: YamlModule | undefined;
const yaml = (): YamlModule => (yamlModule ??= loadYaml());
/** The bundle's copy of yaml, beside this module's file (scripts/build.mjs names it). */
const BUNDLED_YAML = './yaml.js';
function loadYaml(): YamlModule {
  const requireHere = createRequire(import.meta.url);
  const bundled = existsSync(fileURLToPath(new URL(BUNDLED_YAML, import.meta.url)));
  return requireHere(bundled ? BUNDLED_YAML : 'yaml') as YamlModule;
}
/** The yaml library, loaded on first use (for writers of YAML: the lock file). */
export const yamlLibrary = yaml;
/**
 * The file this parser's code is in (yaml-source.js after tsc, a chunk of the bundle, the .ts source
 * under vitest): the parse cache keys its entries on that file's text, so a new parser misses.
 */
export const PARSER_MODULE_URL = import.meta.url;

/** Appends the nodes below `node` (whose node number is `parent`) to the index being built. */
function indexNodes(node: unknown, parent: number, index: { segments: string[]; length: number; nodes: number[] }): void {
  const { isMap, isPair, isScalar, isSeq } = yaml();
  const add = (segment: string, key: number, value: number): number => {
    index.segments.push(segment);
    index.length += segment.length;
    index.nodes.push(parent, index.length, key, value);
    return index.nodes.length / NODE_FIELDS - 1;
  };
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const value = pair.value as { range?: [number, number, number]; source?: unknown; value?: unknown } | null;
      const written = value?.range && !(isScalar(value) && value.value === null && (value.source === undefined || value.source === ''));
      const self = add(String(pair.key.value), pair.key.range?.[0] ?? -1, written ? (value.range as [number, number, number])[0] : -1);
      indexNodes(pair.value, self, index);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, position) => {
      const range = (item as { range?: [number, number, number] } | null)?.range;
      const self = add(String(position), -1, range ? range[0] : -1);
      indexNodes(item, self, index);
    });
  }
}

/**
 * The node number of `segment` below node `parent` (-1: top level), or -1. The nodes below a node
 * follow it, and end at the first node whose parent comes before it (depth-first order).
 */
function childOf(index: DocumentIndex, parent: number, segment: string): number {
  const { nodes, segments } = index;
  const count = nodes.length / NODE_FIELDS;
  for (let node = parent + 1; node < count; node++) {
    const nodeParent = nodes[node * NODE_FIELDS] as number;
    if (nodeParent < parent) return -1;
    if (nodeParent !== parent) continue;
    const end = nodes[node * NODE_FIELDS + 1] as number;
    const start = node === 0 ? 0 : (nodes[(node - 1) * NODE_FIELDS + 1] as number);
    if (end - start === segment.length && segments.startsWith(segment, start)) return node;
  }
  return -1;
}

/** 1-based line and column of an offset, from the offsets where lines start. */
function positionOf(lineStarts: readonly number[], offset: number): { line: number; col: number } {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((lineStarts[middle] as number) <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, col: offset - (lineStarts[low] ?? 0) + 1 };
}

/**
 * Which parser reads plain YAML: the plain parser (yaml-plain.ts), unless AGENTFORM_YAML_PARSER=library
 * (or AGENTFORM_OPTIMIZATIONS=off) sends every file to the yaml library (a way out, should the plain
 * parser ever be suspected of reading a file differently; the parse cache keeps the two apart).
 */
export function yamlParser(env: NodeJS.ProcessEnv = process.env): 'plain' | 'library' {
  return env.AGENTFORM_YAML_PARSER?.trim() === 'library' || optimizationsOff(env, 'yaml-plain') ? 'library' : 'plain';
}

/**
 * Parses every document of a file into plain data. Syntax errors become problems, placed at the
 * mistake and worded plainly (yaml-errors.ts); documents with syntax errors are dropped, the others are kept. Never throws. Plain
 * text (yaml-plain.ts) is read without the library, to the same result.
 */
export function parseYamlText(file: string, text: string, env: NodeJS.ProcessEnv = process.env): ParsedFile {
  const problems: Problem[] = [];
  const at = (line: number, col: number): SourceLocation => ({ file, line, col });
  if (text.includes('\u0000')) {
    problems.push({ severity: 'error', message: 'not a YAML file: it contains binary data (NUL bytes)', location: at(1, 1) });
    return { file, documents: [], problems };
  }
  const plain = yamlParser(env) === 'plain' ? parsePlainYaml(text) : undefined;
  if (plain) return { file, documents: plain, problems };
  return parseWithLibrary(file, text);
}

/** parseYamlText through the yaml library alone (for any text, plain or not). Never throws. */
export function parseWithLibrary(file: string, text: string): ParsedFile {
  const problems: Problem[] = [];
  const at = (line: number, col: number): SourceLocation => ({ file, line, col });
  const { LineCounter, parseAllDocuments } = yaml();
  const counter = new LineCounter();
  let documents: Document.Parsed[];
  try {
    const parsed = parseAllDocuments(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false, strict: true });
    // parseAllDocuments returns an array (possibly empty) or, for some inputs, a single document.
    documents = (Array.isArray(parsed) ? parsed : [parsed]) as Document.Parsed[];
  } catch (error) {
    problems.push({
      severity: 'error',
      message: `cannot parse YAML: ${error instanceof Error ? plainWords(error.message) : String(error)}`,
      location: at(1, 1),
    });
    return { file, documents: [], problems };
  }
  const lineStarts = counter.lineStarts;
  const textEnd = text.trimEnd().length;
  const locationOf = (offset: number): SourceLocation => {
    let clamped = Math.min(Math.max(offset, 0), text.length);
    // An error the parser only notices at the end of the text is placed on the last line that has
    // text, not on the empty line after it.
    if (clamped >= textEnd && textEnd > 0) {
      const lastText = text.slice(0, textEnd);
      const lineStart = lastText.lastIndexOf('\n') + 1;
      clamped = Math.min(clamped, lineStart + (lastText.length - lineStart - lastText.slice(lineStart).trimStart().length));
    }
    const { line, col } = positionOf(lineStarts, clamped);
    return at(line, col);
  };
  const out: ParsedDocument[] = [];
  // Made once per file, and only for a file with a syntax error.
  let source: SourceText | undefined;
  let unclosed: UnclosedOpener[] | undefined;
  const openers = (): UnclosedOpener[] => (unclosed ??= unclosedOpeners(yaml(), text));
  for (const document of documents) {
    if (document.errors.length > 0) {
      source ??= new SourceText(text);
      for (const mistake of documentMistakes(yaml(), source, document, openers)) {
        problems.push({ severity: 'error', message: mistake.message, location: locationOf(mistake.offset) });
      }
    }
    for (const warning of document.warnings) {
      problems.push({ severity: 'warning', message: plainWords(warning.message), location: locationOf(warning.pos?.[0] ?? 0) });
    }
    if (document.errors.length > 0) continue;
    try {
      const index = { segments: [] as string[], length: 0, nodes: [] as number[] };
      indexNodes(document.contents, -1, index);
      const value = document.toJS({ maxAliasCount: 1000 }) as unknown;
      out.push({
        value,
        start: document.contents?.range?.[0] ?? document.range[0],
        index: { segments: index.segments.join(''), nodes: index.nodes },
        nullFree: !hasNullField(value as JsonValue),
        lineStarts,
      });
    } catch (error) {
      // toJS can still fail on pathological input (alias bombs): report, never crash.
      problems.push({
        severity: 'error',
        message: `cannot read YAML: ${error instanceof Error ? plainWords(error.message) : String(error)}`,
        location: at(1, 1),
      });
    }
  }
  return { file, documents: out, problems };
}

/** Plain parse results → documents that can locate paths. */
export function locatedDocuments(parsed: ParsedFile, absolutePath: string): LocatedDocument[] {
  return parsed.documents.map((document) => {
    const at = (offset: number): SourceLocation => ({ file: parsed.file, ...positionOf(document.lineStarts, offset) });
    return {
      file: parsed.file,
      absolutePath,
      value: document.value,
      nullFree: document.nullFree,
      locate(path, target = 'value') {
        let best = document.start;
        let node = -1;
        for (let position = 0; position < path.length; position++) {
          node = childOf(document.index, node, String(path[position]));
          if (node < 0) return at(best);
          const key = document.index.nodes[node * NODE_FIELDS + 2] as number;
          const value = document.index.nodes[node * NODE_FIELDS + 3] as number;
          if (key >= 0) best = key;
          if (position === path.length - 1 && target === 'key' && key >= 0) return at(key);
          if (value < 0) return at(best);
          best = value;
        }
        return at(best);
      },
      has(path) {
        let node = -1;
        for (let position = 0; position < path.length; position++) {
          node = childOf(document.index, node, String(path[position]));
          if (node < 0) return false;
        }
        return true;
      },
    };
  });
}
