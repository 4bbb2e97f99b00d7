// A parser for the plain YAML that project files are nearly always written in, to skip the yaml
// library where it can: block mappings and sequences, one-line flow collections, plain scalars
// (over more lines too), quoted scalars on one line, literal and folded block scalars (`|`, `|-`,
// `>`, `>-`), comments, documents split by `---`, LF or CRLF line ends. For that text it gives
// exactly what yaml-source.ts gets from the library (values, index, offsets, line starts); for
// anything else (anchors, tags, multi-line quoted scalars or flow collections, kept or indented block
// scalars, folded blocks with more-indented lines, tabs, a CR that does not end a line, `...`, a file
// of nothing but comments, duplicate keys, a scalar on a later line than its key or dash after a
// comment or a blank line, syntax errors, ...) it gives up and the library parses the file, so every
// problem is still worded and placed by the library. Wherever the two could read a text differently
// it gives up, so that what is applied never depends on which ran (issue 45). test/config/yaml-plain.test.ts
// holds both to the same result over every YAML file in the repository and thousands of mutations of
// them.
//
// Why: a run whose files are not in the parse cache (every fresh CI checkout, the first run after an
// edit) spent most of its time in the library, which builds a token stream, a syntax tree and a
// document for each file: many times the file's size in allocations.
import { hasNullField } from '../model/json.js';
import type { JsonValue } from '../model/resources.js';
import { type DocumentIndex, NODE_FIELDS, type ParsedDocument } from './parsed-yaml.js';

/** This module's file: the parse cache's entries name the code that parsed them (parse-cache.ts). */
export const PLAIN_PARSER_MODULE_URL = import.meta.url;

/** Why the text is not plain; only ever thrown and caught inside this module. */
class NotPlain extends Error {}
const notPlain = (): never => {
  throw new NotPlain();
};

/** Characters the text may not contain for this parser: control characters (tab too; CR but before LF), BOM, line/paragraph separators, lone surrogates. */
const UNSUPPORTED_CHARACTER =
  /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff]|\r(?!\n)|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Collections nested deeper than this are the library's (which reports nesting too deep for it); no project nests a tenth as deep. */
const MAX_DEPTH = 100;
/** yaml refuses implicit keys over 1,024 characters; well below that, the library decides. */
const MAX_KEY_LENGTH = 1000;
const SPACE = 0x20;
const HASH = 0x23;
const DASH = 0x2d;
const COLON = 0x3a;
const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * The documents of `text` when all of it is plain YAML (this module's header), else undefined.
 * Every document gets the same `lineStarts` array.
 */
export function parsePlainYaml(text: string): ParsedDocument[] | undefined {
  if (UNSUPPORTED_CHARACTER.test(text)) return undefined;
  try {
    return new PlainParser(text).documents();
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}

interface IndexBuilder {
  segments: string[];
  length: number;
  nodes: number[];
}

/** Core schema scalars (yaml's schema/core and schema/common), in the library's order. */
function resolvePlain(source: string): string | number | boolean | null {
  if (/^(?:~|[Nn]ull|NULL)?$/.test(source)) return null;
  if (/^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(source)) return source[0] === 't' || source[0] === 'T';
  const first = source.charCodeAt(0);
  // Only these can start a number.
  if (!(first === 0x2b || first === DASH || first === 0x2e || (first >= 0x30 && first <= 0x39))) return source;
  if (/^0o[0-7]+$/.test(source)) return parseInt(source.substring(2), 8);
  if (/^[-+]?[0-9]+$/.test(source)) return parseInt(source, 10);
  if (/^0x[0-9a-fA-F]+$/.test(source)) return parseInt(source.substring(2), 16);
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(source))
    return source.slice(-3).toLowerCase() === 'nan' ? NaN : source[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(source)) return parseFloat(source);
  if (/^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(source)) return parseFloat(source);
  return source;
}

/** A plain scalar may not start with an indicator (`-` only before a non-space, as in `-1`, and not before a flow indicator). */
function plainMayStartWith(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code === DASH) {
    const next = text[at + 1];
    return next !== undefined && ' \r\n,[]{}'.indexOf(next) < 0;
  }
  return '?:,[]{}#&*!|>\'"%@`'.indexOf(text[at] as string) < 0 && code !== SPACE && code !== NEWLINE && code !== CR && !Number.isNaN(code);
}

class PlainParser {
  private readonly text: string;
  /** Per line: where it starts, ends (before its LF or CRLF, or at the end of the text) and where its content starts. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly contents: number[] = [];
  /** The column a line's content starts at; an inline collection after `- ` moves it right. */
  private readonly indents: number[] = [];
  /** The line being read. */
  private line = 0;
  private index: IndexBuilder = { segments: [], length: 0, nodes: [] };
  /** Collections open around the one being read. */
  private depth = 0;

  constructor(text: string) {
    this.text = text;
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n', start);
      // A line's text ends before its CR, as the library reads CRLF.
      const lineEnd = end < 0 ? text.length : end > start && text.charCodeAt(end - 1) === CR ? end - 1 : end;
      let content = start;
      while (content < lineEnd && text.charCodeAt(content) === SPACE) content++;
      this.starts.push(start);
      this.ends.push(lineEnd);
      this.contents.push(content);
      this.indents.push(content - start);
      if (end < 0) break;
      start = end + 1;
    }
  }

  documents(): ParsedDocument[] {
    // As yaml's LineCounter: 0, then the offset after every newline (this.starts is never changed).
    const lineStarts = this.starts;
    const out: ParsedDocument[] = [];
    this.skipBlankLines();
    // The line of the `---` that opened the document being read, if one did.
    let marker = this.isDocumentStart() ? this.line : -1;
    if (marker >= 0) this.nextLine();
    for (;;) {
      this.skipBlankLines();
      if (this.atEnd() || this.isDocumentStart()) {
        // Only comments, and no `---`: the library's business; so is a `--- # comment` before nothing
        // (where the library starts that document is its own affair).
        if (marker < 0 || this.ends[marker] !== (this.starts[marker] as number) + 3) notPlain();
        // `---` with nothing after it: an empty document, which the library starts after the marker.
        out.push({ value: null, start: (this.starts[marker] as number) + 3, index: { segments: '', nodes: [] }, nullFree: true, lineStarts });
        if (this.atEnd()) return out;
        marker = this.line;
        this.nextLine();
        continue;
      }
      if (this.isDocumentEnd() || this.indents[this.line] !== 0) notPlain();
      this.index = { segments: [], length: 0, nodes: [] };
      const start = this.contents[this.line] as number;
      const value = this.collection(0, -1);
      this.skipBlankLines();
      const index: DocumentIndex = { segments: this.index.segments.join(''), nodes: this.index.nodes };
      out.push({ value, start, index, nullFree: !hasNullField(value as JsonValue), lineStarts });
      if (this.atEnd()) return out;
      if (!this.isDocumentStart()) notPlain();
      marker = this.line;
      this.nextLine();
    }
  }

  private atEnd(): boolean {
    return this.line >= this.starts.length;
  }

  private nextLine(): void {
    this.line++;
  }

  /** Skips lines that hold only spaces or a comment; whether there were any. */
  private skipBlankLines(): boolean {
    const first = this.line;
    while (this.line < this.starts.length) {
      const content = this.contents[this.line] as number;
      if (content !== this.ends[this.line] && this.text.charCodeAt(content) !== HASH) break;
      this.line++;
    }
    return this.line !== first;
  }

  /** The current line is `---`, alone or before a comment (content after it is not plain). */
  private isDocumentStart(): boolean {
    return this.isMarker('---');
  }

  private isDocumentEnd(): boolean {
    return this.isMarker('...');
  }

  private isMarker(marker: string): boolean {
    if (this.atEnd()) return false;
    const start = this.starts[this.line] as number;
    if (!this.text.startsWith(marker, start)) return false;
    const end = this.ends[this.line] as number;
    let after = start + 3;
    if (after === end) return true;
    // `--- # note` is a marker; `---x` is a plain scalar and `--- x` a document with inline content:
    // neither is plain enough.
    if (this.text.charCodeAt(after) !== SPACE) return notPlain();
    while (after < end && this.text.charCodeAt(after) === SPACE) after++;
    return after === end || this.text.charCodeAt(after) === HASH || notPlain();
  }

  /** A block collection whose first line is the current one, at column `indent`. */
  private collection(indent: number, parent: number): unknown {
    const at = this.contents[this.line] as number;
    if (++this.depth > MAX_DEPTH) notPlain();
    const value = this.isSequenceEntry(at) ? this.sequence(indent, parent) : this.mapping(indent, parent);
    this.depth--;
    return value;
  }

  /** `-` followed by a space or the line's end. */
  private isSequenceEntry(at: number): boolean {
    if (this.text.charCodeAt(at) !== DASH) return false;
    const next = this.text.charCodeAt(at + 1);
    return next === SPACE || at + 1 === this.ends[this.line];
  }

  private addNode(parent: number, segment: string, key: number, value: number): number {
    const index = this.index;
    index.segments.push(segment);
    index.length += segment.length;
    index.nodes.push(parent, index.length, key, value);
    return index.nodes.length / NODE_FIELDS - 1;
  }

  private setNodeValue(node: number, value: number): void {
    this.index.nodes[node * NODE_FIELDS + 3] = value;
  }

  /**
   * After an entry's value: the next line with content, and whether the collection at `indent`
   * goes on with it (same column), ends (less indented, a document marker, the end), or neither
   * (more indented: a continuation line or an error, not plain).
   */
  private continues(indent: number): boolean {
    this.skipBlankLines();
    if (this.atEnd()) return false;
    const lineIndent = this.indents[this.line] as number;
    if (lineIndent === 0 && (this.isDocumentStart() || this.isDocumentEnd())) return false;
    if (lineIndent > indent) notPlain();
    return lineIndent === indent;
  }

  private sequence(indent: number, parent: number): unknown[] {
    const items: unknown[] = [];
    do {
      const at = this.contents[this.line] as number;
      if (!this.isSequenceEntry(at)) return items; // the mapping around a compact sequence goes on
      const node = this.addNode(parent, String(items.length), -1, -1);
      let content = at + 1;
      const end = this.ends[this.line] as number;
      while (content < end && this.text.charCodeAt(content) === SPACE) content++;
      if (content === end || this.text.charCodeAt(content) === HASH) {
        // The item's collection starts on a later line.
        const commented = content !== end;
        this.nextLine();
        const gap = this.skipBlankLines() || commented;
        if (this.atEnd() || (this.indents[this.line] as number) <= indent || this.isDocumentStart()) notPlain();
        this.setNodeValue(node, this.contents[this.line] as number);
        items.push(this.collectionOrScalar(this.indents[this.line] as number, indent, node, gap));
      } else if (this.isSequenceEntry(content) || this.startsMappingEntry(content)) {
        // `- key: value` or `- - item`: a collection that starts on this line, at this column.
        const column = content - (this.starts[this.line] as number);
        this.indents[this.line] = column;
        this.contents[this.line] = content;
        this.setNodeValue(node, content);
        items.push(this.collection(column, node));
      } else {
        this.setNodeValue(node, content);
        items.push(this.inlineValue(content, indent, node));
      }
    } while (this.continues(indent));
    return items;
  }

  private mapping(indent: number, parent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    const keys = new Set<string>();
    do {
      const at = this.contents[this.line] as number;
      if (this.isSequenceEntry(at)) notPlain();
      const { key, colon } = this.mappingKey(at);
      if (keys.has(key) || key === '__proto__' || key === '<<' || key.length > MAX_KEY_LENGTH) notPlain();
      keys.add(key);
      const node = this.addNode(parent, key, at, -1);
      let content = colon + 1;
      const end = this.ends[this.line] as number;
      while (content < end && this.text.charCodeAt(content) === SPACE) content++;
      if (content === end || this.text.charCodeAt(content) === HASH) {
        const commented = content !== end;
        this.nextLine();
        map[key] = this.valueOnLaterLines(indent, node, commented);
      } else {
        this.setNodeValue(node, content);
        map[key] = this.inlineValue(content, indent, node);
      }
    } while (this.continues(indent));
    return map;
  }

  /** A mapping value not on its key's line: a nested collection, a compact sequence, or nothing (null). */
  private valueOnLaterLines(indent: number, node: number, commented: boolean): unknown {
    const gap = this.skipBlankLines() || commented;
    if (this.atEnd()) return null;
    const lineIndent = this.indents[this.line] as number;
    const at = this.contents[this.line] as number;
    if (lineIndent === 0 && (this.isDocumentStart() || this.isDocumentEnd())) return null;
    if (lineIndent > indent || (lineIndent === indent && this.isSequenceEntry(at))) {
      this.setNodeValue(node, at);
      return this.collectionOrScalar(lineIndent, indent, node, gap);
    }
    return null;
  }

  /**
   * What starts at the current line, more indented than the collection at `indent` that holds it: a
   * collection, or a scalar (a plain one may go on over more lines; a block scalar's header belongs
   * on its key's line, as far as this parser goes). `gap`: a comment or a blank line came between
   * the key or dash and this line.
   */
  private collectionOrScalar(lineIndent: number, indent: number, node: number, gap: boolean): unknown {
    const at = this.contents[this.line] as number;
    if (this.isSequenceEntry(at) || this.startsMappingEntry(at)) return this.collection(lineIndent, node);
    const code = this.text.charCodeAt(at);
    // After a comment line (and a blank one), the library reads such a scalar running on over the
    // entries below it, or as an error (issue 45): a scalar is read here only on the very next line.
    if (code === 0x7c || code === 0x3e || gap) notPlain();
    return this.inlineValue(at, indent, node);
  }

  /** Whether a mapping entry (`key:` then a space or the line's end) starts at `at`, reading only this line. */
  private startsMappingEntry(at: number): boolean {
    return this.entryColon(at) >= 0;
  }

  /** The offset of the `:` that makes the text at `at` (on this line) a mapping entry, or -1. */
  private entryColon(at: number): number {
    const text = this.text;
    const end = this.ends[this.line] as number;
    const code = text.charCodeAt(at);
    const endsKey = (colon: number) => text.charCodeAt(colon) === COLON && (colon + 1 === end || text.charCodeAt(colon + 1) === SPACE);
    if (code === 0x22 || code === 0x27) {
      const close = this.quotedEnd(at, end);
      return endsKey(close) ? close : -1;
    }
    if (!plainMayStartWith(text, at)) return -1;
    for (let position = at; position < end; position++) {
      if (endsKey(position)) return position;
      if (text.charCodeAt(position) === HASH && text.charCodeAt(position - 1) === SPACE) return -1;
    }
    return -1;
  }

  /** The key of the entry at `at` and the offset of its `:`. */
  private mappingKey(at: number): { key: string; colon: number } {
    const colon = this.entryColon(at);
    if (colon < 0) notPlain();
    const code = this.text.charCodeAt(at);
    if (code === 0x22 || code === 0x27) return { key: this.quoted(at, colon), colon };
    const source = this.text.slice(at, colon);
    // `key : value`, `[a]: b`, `a, b: c`, `a#b: c`: not plain enough.
    if (this.text.charCodeAt(colon - 1) === SPACE || /[[\]{},#]/.test(source)) notPlain();
    if (typeof resolvePlain(source) !== 'string') notPlain();
    return { key: source, colon };
  }

  /** A value that starts at `at` on the current line; the line is used up. */
  private inlineValue(at: number, indent: number, node: number): unknown {
    const text = this.text;
    const end = this.ends[this.line] as number;
    const code = text.charCodeAt(at);
    let value: unknown;
    let after: number;
    if (code === 0x7c || code === 0x3e) return this.blockScalar(at, indent);
    if (code === 0x5b || code === 0x7b) {
      const flow = { at };
      value = this.flowCollection(flow, end, node);
      after = flow.at;
    } else if (code === 0x22 || code === 0x27) {
      after = this.quotedEnd(at, end);
      value = this.quoted(at, after);
    } else {
      if (!plainMayStartWith(text, at)) notPlain();
      const comment = text.indexOf(' #', at);
      const commented = comment >= 0 && comment < end;
      let stop = commented ? comment : end;
      while (text.charCodeAt(stop - 1) === SPACE) stop--;
      const source = text.slice(at, stop);
      // `a: b: c` is an error; `a: b:` a question for the library.
      if (source.includes(': ') || source.charCodeAt(source.length - 1) === COLON) notPlain();
      // Without a comment on its line, a plain scalar may go on, folded, on more indented lines.
      value = resolvePlain(commented ? source : this.foldedPlain(source, indent));
      after = stop;
    }
    this.restOfLineIsComment(after, end);
    this.nextLine();
    return value;
  }

  /**
   * A plain scalar whose first line (of the current line) is `first`, with the lines after it that
   * are more indented than `indent` folded in: one line break between two lines becomes a space, each
   * empty line a line break. Leaves the current line on its last line. Continuation lines that could
   * read as anything else (a comment, an indicator first, `: ` or ` #` inside) are the library's.
   */
  private foldedPlain(first: string, indent: number): string {
    let folded = first;
    let emptyLines = 0;
    for (let next = this.line + 1; next < this.starts.length; next++) {
      const content = this.contents[next] as number;
      const end = this.ends[next] as number;
      if (content === end) {
        emptyLines++;
        continue;
      }
      if ((this.indents[next] as number) <= indent) break;
      let stop = end;
      while (this.text.charCodeAt(stop - 1) === SPACE) stop--;
      const line = this.text.slice(content, stop);
      if (!plainMayStartWith(this.text, content) || line.includes(': ') || line.includes(' #') || line.charCodeAt(line.length - 1) === COLON) notPlain();
      folded += emptyLines === 0 ? ` ${line}` : `${'\n'.repeat(emptyLines)}${line}`;
      emptyLines = 0;
      this.line = next;
    }
    return folded;
  }

  /** Only spaces, then perhaps a comment (after a space), from `at` to the line's end. */
  private restOfLineIsComment(at: number, end: number): void {
    let position = at;
    while (position < end && this.text.charCodeAt(position) === SPACE) position++;
    if (position === end) return;
    if (this.text.charCodeAt(position) !== HASH || position === at) notPlain();
  }

  /** The offset after the closing quote of the quoted scalar at `at` (on this line). */
  private quotedEnd(at: number, end: number): number {
    const text = this.text;
    const quote = text.charCodeAt(at);
    for (let position = at + 1; position < end; position++) {
      const char = text.charCodeAt(position);
      if (quote === 0x22 && char === 0x5c) {
        position++;
      } else if (char === quote) {
        if (quote === 0x27 && text.charCodeAt(position + 1) === 0x27) position++;
        else return position + 1;
      }
    }
    return notPlain();
  }

  /** The value of the quoted scalar from `at` to `after` (its closing quote's end). */
  private quoted(at: number, after: number): string {
    const body = this.text.slice(at + 1, after - 1);
    if (this.text.charCodeAt(at) === 0x27) return body.replaceAll("''", "'");
    if (!body.includes('\\')) return body;
    return body.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_match, escaped: string) => {
      if (escaped.length === 5) return String.fromCharCode(parseInt(escaped.slice(1), 16));
      const simple = DOUBLE_QUOTED_ESCAPES.get(escaped);
      return simple ?? notPlain();
    });
  }

  /**
   * `|` or `|-` at `at`: the lines below, more indented than `indent`, as they are; `>` or `>-`: the
   * same lines folded, when none is more indented than the first or ends in a space (whose folding
   * the library's rules keep apart).
   */
  private blockScalar(at: number, indent: number): string {
    const text = this.text;
    const end = this.ends[this.line] as number;
    const folded = text.charCodeAt(at) === 0x3e;
    let position = at + 1;
    const strip = text.charCodeAt(position) === DASH;
    if (strip) position++;
    if (position < end && text.charCodeAt(position) !== SPACE) notPlain(); // `|+`, `|2`, ...
    this.restOfLineIsComment(position, end);
    this.nextLine();
    const lines: string[] = [];
    let blockIndent = -1;
    let lastEnd = -1;
    while (!this.atEnd()) {
      const lineStart = this.starts[this.line] as number;
      const lineEnd = this.ends[this.line] as number;
      const content = this.contents[this.line] as number;
      const lineIndent = content - lineStart;
      if (content === lineEnd) {
        // A line of spaces only: an empty line of the block, unless it holds more than the
        // indentation (content), or comes before the first line (the indentation is not known yet).
        if (blockIndent < 0 || lineIndent > blockIndent) notPlain();
        lines.push('');
        this.nextLine();
        continue;
      }
      if (blockIndent < 0) {
        if (lineIndent <= indent) notPlain(); // an empty block
        blockIndent = lineIndent;
      }
      if (lineIndent < blockIndent) break;
      if (folded && (lineIndent > blockIndent || text.charCodeAt(lineEnd - 1) === SPACE)) notPlain();
      lines.push(text.slice(lineStart + blockIndent, lineEnd));
      lastEnd = lineEnd;
      this.nextLine();
    }
    if (blockIndent < 0 || lastEnd === text.length) notPlain();
    while (lines[lines.length - 1] === '') lines.pop();
    const body = folded ? fold(lines) : lines.join('\n');
    return strip ? body : `${body}\n`;
  }

  /** A flow collection from `position.at` (`[` or `{`) on this line; moves `position.at` past it. */
  private flowCollection(position: { at: number }, end: number, parent: number): unknown {
    const text = this.text;
    const open = text.charCodeAt(position.at);
    const close = open === 0x5b ? 0x5d : 0x7d;
    const isMap = open === 0x7b;
    const map: Record<string, unknown> = {};
    const items: unknown[] = [];
    position.at++;
    this.skipSpaces(position, end);
    if (text.charCodeAt(position.at) === close) {
      position.at++;
      return isMap ? map : items;
    }
    for (;;) {
      if (isMap) {
        const keyAt = position.at;
        const key = this.flowScalar(position, end);
        if (typeof key !== 'string' || Object.hasOwn(map, key) || key === '__proto__' || key === '<<' || key.length > MAX_KEY_LENGTH) notPlain();
        const keyString = key as string;
        if (text.charCodeAt(position.at) !== COLON || text.charCodeAt(position.at + 1) !== SPACE) notPlain();
        position.at += 2;
        this.skipSpaces(position, end);
        const node = this.addNode(parent, keyString, keyAt, position.at);
        map[keyString] = this.flowValue(position, end, node);
      } else {
        const node = this.addNode(parent, String(items.length), -1, position.at);
        items.push(this.flowValue(position, end, node));
      }
      this.skipSpaces(position, end);
      const next = text.charCodeAt(position.at);
      if (next === close) {
        position.at++;
        return isMap ? map : items;
      }
      if (next !== 0x2c) notPlain();
      position.at++;
      this.skipSpaces(position, end);
      if (text.charCodeAt(position.at) === close) notPlain(); // a trailing comma
    }
  }

  private flowValue(position: { at: number }, end: number, node: number): unknown {
    const code = this.text.charCodeAt(position.at);
    if (code !== 0x5b && code !== 0x7b) return this.flowScalar(position, end);
    if (++this.depth > MAX_DEPTH) notPlain();
    const value = this.flowCollection(position, end, node);
    this.depth--;
    return value;
  }

  /** A scalar inside a flow collection: quoted, or plain up to the next `,`, `:`, bracket or brace. */
  private flowScalar(position: { at: number }, end: number): unknown {
    const text = this.text;
    const at = position.at;
    const code = text.charCodeAt(at);
    if (code === 0x22 || code === 0x27) {
      position.at = this.quotedEnd(at, end);
      return this.quoted(at, position.at);
    }
    if (!plainMayStartWith(text, at)) notPlain();
    let stop = at;
    while (stop < end && ',:[]{}#'.indexOf(text[stop] as string) < 0) stop++;
    // `#` and `:` inside a plain scalar, and a scalar cut by the line's end: for the library.
    if (stop === end || text.charCodeAt(stop) === HASH || (text.charCodeAt(stop) === COLON && text.charCodeAt(stop + 1) !== SPACE)) notPlain();
    position.at = stop;
    while (text.charCodeAt(stop - 1) === SPACE) stop--;
    return resolvePlain(text.slice(at, stop));
  }

  private skipSpaces(position: { at: number }, end: number): void {
    while (position.at < end && this.text.charCodeAt(position.at) === SPACE) position.at++;
  }
}

/** The escapes of double-quoted scalars this parser reads (yaml reads them the same way); any other is the library's. */
/** A folded block's lines (none more indented): a line break between two lines becomes a space; each empty line between them, a line break. */
function fold(lines: readonly string[]): string {
  let out = '';
  let emptyLines = 0;
  for (const line of lines) {
    if (line === '') {
      emptyLines++;
      continue;
    }
    if (out !== '') out += emptyLines === 0 ? ' ' : '\n'.repeat(emptyLines);
    out += line;
    emptyLines = 0;
  }
  return out;
}

const DOUBLE_QUOTED_ESCAPES = new Map<string, string>([
  ['\\', '\\'],
  ['"', '"'],
  ['/', '/'],
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['b', '\b'],
  ['f', '\f'],
  ['0', '\0'],
]);
