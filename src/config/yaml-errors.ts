// A YAML document's syntax errors, said where the mistake is and in the user's words. The yaml
// library notices most mistakes later than where they are: an unclosed quote or bracket at the end of
// the file, a mis-indented line on the line above it; and it words them in its own terms
// ("Nested mappings are not allowed in compact mappings"). Each error is placed here at the token
// that is wrong and said plainly. The plain parser (yaml-plain.ts) leaves every file with a mistake
// to the library, so both paths report them alike.
import type { Document, Pair, YAMLError, YAMLMap } from 'yaml';
import { type SourceText, closingQuoteEnd, mappingColonAfter, misalignedLine } from './yaml-error-text.js';

type YamlModule = typeof import('yaml');

/** One mistake: what is wrong, and the offset of the token that is. */
export interface YamlMistake {
  message: string;
  offset: number;
}

/** A quote or bracket the file opens and never closes, found in the library's syntax tree (CST). */
export interface UnclosedOpener {
  offset: number;
  opener: '"' | "'" | '[' | '{';
}

const UNCLOSED_MESSAGES: Record<UnclosedOpener['opener'], string> = {
  '"': 'the double quote (") opened here is never closed',
  "'": "the single quote (') opened here is never closed",
  '[': 'the "[" opened here is never closed: end the list with "]" (a list that goes on over more lines needs them indented more than this one)',
  '{': 'the "{" opened here is never closed: end the mapping with "}" (a mapping that goes on over more lines needs them indented more than this one)',
};

/** Library messages said in full in plain words ($1: what the message names, in plain words). */
const PLAIN_MESSAGES: ReadonlyArray<[RegExp, string]> = [
  [/^Missing , between (.+) items.*/, 'missing "," between the items of a $1'],
  [/^Missing , or : between (.+) items.*/, 'missing "," or ":" between the entries of a $1'],
  [/^Missing space after : in (.+)/, 'missing space after ":" in a $1'],
  [/^Unexpected , in (.+)/, 'unexpected "," in a $1'],
  [/^Unexpected empty item in (.+)/, 'an empty item in a $1: remove the extra ","'],
  [
    /^Block collections are not allowed within flow collections.*/,
    'inside [ ] or { }, a value cannot be an indented mapping or list: put the value in quotes if its ":" or "-" belongs to it',
  ],
  [/^Alias cannot be an empty string.*/, 'a value cannot start with "*" unquoted (it marks a reference to an anchor): put the value in quotes'],
  [/^Anchor cannot be an empty string.*/, 'a value cannot start with "&" unquoted (it marks an anchor): put the value in quotes'],
  [/^Missing directives-end.*/, 'a line cannot start with "%" unquoted (it marks a directive): put the value in quotes'],
];

/** What a library message names, in the words of the rest of agentform's messages. */
const PLAIN_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/\bflow sequence\b/gi, 'list in [ ]'],
  [/\bflow map(ping)?\b/gi, 'mapping in { }'],
  [/\bblock sequence\b/gi, 'list'],
  [/\bblock map(ping)?\b/gi, 'mapping'],
  [/\bimplicit (map )?keys?\b/gi, 'key'],
  [/\bmap keys\b/gi, 'keys'],
  [/\bblock scalar\b/gi, 'block of text (| or >)'],
  // The last resort for messages no rule above rewrites: the library's own nouns.
  [/\bflow collections?\b/gi, '[ ] or { }'],
  [/\b(plain |quoted )?scalars?\b/gi, 'value'],
  [/\bnodes?\b/gi, 'value'],
  [/\btokens?\b/gi, 'text'],
  [/\b(YAML )?stream\b/gi, 'file'],
  [/\bindicators?\b/gi, 'mark'],
  [/\bcompact\b/gi, 'inline'],
];

const CLOSER_NAMES: Record<string, string> = { 'flow-seq-end': ']', 'flow-map-end': '}', 'map-value-ind': ':', comma: ',', 'seq-item-ind': '-' };
const OPENER_OF: Record<string, string> = { ']': '[', '}': '{' };

/**
 * Every quote and bracket `text` opens and never closes, in the order they open. Read from the
 * syntax tree once per file with an error (a bracket's closing token is missing there even when a
 * closing character comes later, too little indented to belong to it).
 */
export function unclosedOpeners(yaml: YamlModule, text: string): UnclosedOpener[] {
  const found: UnclosedOpener[] = [];
  // A stack, not recursion: a hostile file may nest brackets thousands deep.
  const pending: unknown[] = [...new yaml.Parser().parse(text)];
  while (pending.length > 0) {
    const token = pending.pop();
    if (typeof token !== 'object' || token === null) continue;
    if (Array.isArray(token)) {
      pending.push(...(token as unknown[]));
      continue;
    }
    const { type, offset, source, start, end } = token as { type?: unknown; offset?: unknown; source?: unknown; start?: unknown; end?: unknown };
    if ((type === 'double-quoted-scalar' || type === 'single-quoted-scalar') && typeof offset === 'number' && typeof source === 'string') {
      if (closingQuoteEnd(source, 0) < 0) found.push({ offset, opener: type === 'double-quoted-scalar' ? '"' : "'" });
    } else if (type === 'flow-collection' && typeof start === 'object' && start !== null) {
      const { source: opener, offset: at } = start as { source?: unknown; offset?: unknown };
      const closer = opener === '[' ? 'flow-seq-end' : 'flow-map-end';
      const closed = Array.isArray(end) && end.some((item: { type?: unknown }) => item.type === closer);
      if (!closed && (opener === '[' || opener === '{') && typeof at === 'number') found.push({ offset: at, opener });
    }
    for (const value of Object.values(token)) if (typeof value === 'object') pending.push(value);
  }
  return found.sort((a, b) => a.offset - b.offset);
}

/**
 * The mistakes behind a document's syntax errors: each duplicate key (they confuse nothing), and the
 * first other error the parser met, or the unclosed quote or bracket before it: the errors after it
 * mostly follow from the parser's confusion, and would send the reader to the wrong lines.
 */
export function documentMistakes(yaml: YamlModule, source: SourceText, document: Document.Parsed, unclosed: () => readonly UnclosedOpener[]): YamlMistake[] {
  const mistakes: YamlMistake[] = [];
  const others: YAMLError[] = [];
  let duplicates: RepeatedKey[] | undefined;
  for (const error of document.errors) {
    if (error.code !== 'DUPLICATE_KEY') others.push(error);
    else mistakes.push(duplicateKey(source, (duplicates ??= repeatedKeys(yaml, document)), error.pos[0]));
  }
  const first = others[0];
  if (first === undefined) return mistakes;
  const [documentStart, , documentEnd] = document.range;
  // An unclosed quote or bracket is the mistake behind every error the parser meets after it.
  const opener = firstAtOrAfter(unclosed(), documentStart);
  const translated = translate(yaml, source, document, first);
  const cause =
    opener && opener.offset <= documentEnd && opener.offset <= translated.offset
      ? { message: UNCLOSED_MESSAGES[opener.opener], offset: opener.offset }
      : translated;
  const more = others.length - 1;
  const note = more > 0 ? ` (${more} more error${more === 1 ? '' : 's'} after it may follow from this one)` : '';
  mistakes.push({ message: `${cause.message}${note}`, offset: cause.offset });
  return mistakes;
}

/** The first of `sorted` (by offset) at or after `offset`. */
function firstAtOrAfter<T extends { offset: number }>(sorted: readonly T[], offset: number): T | undefined {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle] as T).offset < offset) low = middle + 1;
    else high = middle;
  }
  return sorted[low];
}

/** One library error, placed at the token that is wrong and said in plain words. */
function translate(yaml: YamlModule, source: SourceText, document: Document.Parsed, error: YAMLError): YamlMistake {
  const at = error.pos[0];
  const message = error.message.split('\n')[0] ?? '';
  switch (error.code) {
    case 'BAD_SCALAR_START': {
      const character = /(\S)$/.exec(message)?.[1];
      const which = character === undefined ? '' : ` with "${character}"`;
      return { message: `a value cannot start${which} unquoted: put the value in quotes`, offset: at };
    }
    case 'RESOURCE_EXHAUSTION':
      // The library ran out of stack composing collections nested thousands deep.
      return { message: 'collections nest too deeply to read (thousands of levels)', offset: at };
    case 'TAB_AS_INDENT':
      return { message: 'tab used for indentation: YAML indents with spaces', offset: at };
    case 'BAD_DQ_ESCAPE':
      return { message: 'unknown escape in a double-quoted value: write \\\\ for a backslash, or quote the value with single quotes', offset: at };
    case 'BAD_INDENT':
      if (/^All (mapping|sequence) items must start at the same column/.test(message)) return misaligned(source, at);
      break;
    case 'BLOCK_AS_IMPLICIT_KEY':
      if (/^Nested mappings/.test(message)) return colonInValue(yaml, source, document, at);
      return listItemOutOfPlace(source, at);
    case 'MULTILINE_IMPLICIT_KEY':
      return missingColon(source, at);
    case 'MISSING_CHAR':
      if (/^Implicit map keys need to be followed by map values/.test(message)) return missingColon(source, at);
      if (/^Comments must be separated/.test(message)) return { message: 'a comment ("#") needs a space before it', offset: at };
      if (/^Missing closing "quote/.test(message)) return { message: UNCLOSED_MESSAGES['"'], offset: at };
      if (/^Missing closing 'quote/.test(message)) return { message: UNCLOSED_MESSAGES["'"], offset: at };
      if (/^Sequence item without - indicator/.test(message)) return misaligned(source, at);
      break;
    case 'UNEXPECTED_TOKEN':
      return unexpectedToken(source, at, message);
    default:
      break;
  }
  return { message: plainMessage(message) ?? `YAML syntax error: ${plainWords(message)}`, offset: at };
}

/** The library's message said in full in plain words, if PLAIN_MESSAGES has it. */
function plainMessage(message: string): string | undefined {
  const plain = PLAIN_MESSAGES.find(([pattern]) => pattern.test(message));
  return plain ? plainWords(message.replace(plain[0], plain[1])) : undefined;
}

/** A key a mapping repeats: where it is repeated, and where it first is. */
interface RepeatedKey {
  key: string;
  offset: number;
  first: number;
}

/** Every repeated key of a document, in the order of the text. */
function repeatedKeys(yaml: YamlModule, document: Document.Parsed): RepeatedKey[] {
  const { isScalar } = yaml;
  const startOf = (node: unknown): number => (node as { range?: number[] } | null)?.range?.[0] ?? -1;
  const repeated: RepeatedKey[] = [];
  for (const map of mapsOf(yaml, document.contents)) {
    const firsts = new Map<unknown, number>();
    for (const pair of map.items) {
      if (!isScalar(pair.key)) continue;
      const first = firsts.get(pair.key.value);
      if (first === undefined) firsts.set(pair.key.value, startOf(pair.key));
      else repeated.push({ key: String(pair.key.value), offset: startOf(pair.key), first });
    }
  }
  return repeated.sort((a, b) => a.offset - b.offset);
}

/**
 * `duplicate key "model" (first at line 4)`, at the second one: the first repeated key at or after
 * the library's offset (which, after a key written empty, is where that entry ends).
 */
function duplicateKey(source: SourceText, repeated: readonly RepeatedKey[], at: number): YamlMistake {
  const found = firstAtOrAfter(repeated, at);
  if (!found) return { message: 'duplicate key: a key may appear only once in a mapping', offset: at };
  return { message: `duplicate key ${JSON.stringify(found.key)} (first at ${lineAndColumn(source, found.first, found.offset)})`, offset: found.offset };
}

/** `line 4`, or `line 4, column 12` when `offset` is on the line of `other`. */
function lineAndColumn(source: SourceText, offset: number, other: number): string {
  const line = source.lineOf(offset);
  return line === source.lineOf(other) ? `line ${line + 1}, column ${offset - source.lineStart(line) + 1}` : `line ${line + 1}`;
}

/** Every mapping in a node. A stack, not recursion: the library composes nesting thousands deep. */
function mapsOf(yaml: YamlModule, node: unknown): Array<YAMLMap<unknown, unknown>> {
  const { isMap, isPair, isSeq } = yaml;
  const maps: Array<YAMLMap<unknown, unknown>> = [];
  const pending: unknown[] = [node];
  while (pending.length > 0) {
    const next = pending.pop();
    if (isMap(next)) {
      maps.push(next);
      for (const pair of next.items) pending.push(pair.key, pair.value);
    } else if (isSeq(next)) {
      for (const item of next.items) pending.push(isPair(item) ? (item as Pair).value : item);
    }
  }
  return maps;
}

/** The key whose value starts at `at`, if it is a plain one to name. */
function keyOfValueAt(yaml: YamlModule, document: Document.Parsed, at: number): string | undefined {
  for (const map of mapsOf(yaml, document.contents)) {
    const pair = map.items.find((item) => (item.value as { range?: number[] } | null)?.range?.[0] === at);
    if (pair && yaml.isScalar(pair.key)) return String(pair.key.value);
  }
  return undefined;
}

/** A line that lines up with no block collection above it (the library points at its start, or at the line before). */
function misaligned(source: SourceText, at: number): YamlMistake {
  const content = source.contentFrom(at);
  return { message: misalignedLine(source, content) ?? 'bad indentation: this line does not line up with the lines above it', offset: content };
}

/**
 * A value holding `: `: a stray colon on the value's line (`name: a: b`), or a line below it indented
 * as if it went on with the value (`model: x` then a deeper `system: y`), which the library reports
 * at the value.
 */
function colonInValue(yaml: YamlModule, source: SourceText, document: Document.Parsed, at: number): YamlMistake {
  const colon = mappingColonAfter(source.text, at);
  const key = keyOfValueAt(yaml, document, at);
  if (colon < 0) return { message: 'unexpected ":" in a value: put the value in quotes if the ":" belongs to it', offset: at };
  const valueLine = source.lineOf(at);
  const colonLine = source.lineOf(colon);
  if (colonLine === valueLine) {
    const whose = key === undefined ? 'a value' : `the value of ${JSON.stringify(key)}`;
    return { message: `unexpected ":" in ${whose}: put the value in quotes if the ":" belongs to it`, offset: colon };
  }
  const above = key === undefined ? `line ${valueLine + 1}` : `the key ${JSON.stringify(key)} on line ${valueLine + 1}`;
  return {
    message: `bad indentation: this line is indented more than ${above}, which already has a value`,
    offset: source.contentFrom(source.lineStart(colonLine)),
  };
}

/** `- item` where no list can have it: misaligned with the list above, or among a mapping's keys. */
function listItemOutOfPlace(source: SourceText, at: number): YamlMistake {
  const content = source.contentFrom(at);
  const message = misalignedLine(source, content) ?? 'a list item where the mapping around it expects a key: indent it under the key it belongs to';
  return { message, offset: content };
}

/** A line where a key is expected, with no `:` after its text. */
function missingColon(source: SourceText, at: number): YamlMistake {
  // The text is not quoted back: a line without a key may be a secret pasted in the wrong place.
  return { message: 'missing ":" after the key on this line (a mapping\'s entries are written "key: value")', offset: source.contentFrom(at) };
}

/**
 * Something after the end of a value: the text after a quote that closed the value too early
 * (`'it's'`), a line less indented than the document's first, or a closing bracket with no opening one.
 */
function unexpectedToken(source: SourceText, at: number, message: string): YamlMistake {
  const { text } = source;
  const before = text[at - 1];
  if (/ at node end$/.test(message) && (before === '"' || before === "'")) {
    const howToQuote = before === '"' ? 'write \\" for a quote inside double quotes' : "write '' for a quote inside single quotes";
    return { message: `this quote ends the quoted value, but text follows it on the line: ${howToQuote}`, offset: at - 1 };
  }
  const line = source.lineOf(at);
  const content = source.contentFrom(source.lineStart(line));
  if (content >= at) {
    const misplaced = misalignedLine(source, content);
    if (misplaced !== undefined) return { message: misplaced, offset: content };
  }
  const token = /^Unexpected ([\w-]+) (?:token|at node end)/.exec(message)?.[1];
  const closer = token === undefined ? undefined : CLOSER_NAMES[token];
  if (closer !== undefined && OPENER_OF[closer] !== undefined)
    return { message: `unexpected "${closer}": there is no "${OPENER_OF[closer]}" for it to close`, offset: at };
  if (closer !== undefined) return { message: `unexpected "${closer}" here`, offset: at };
  return { message: plainMessage(message) ?? 'unexpected text here, after the end of the value before it', offset: at };
}

/**
 * A library message in plain words, without the source text it may quote (the text could be a
 * secret someone pasted into the wrong place; a quoted single character is kept).
 */
export function plainWords(message: string): string {
  let out = (message.split('\n')[0] ?? message)
    .replace(/ at line \d+, column \d+:?\s*$/, '')
    .replace(/:\s*"(?:[^"\\]|\\.){2,}"\s*$/, '')
    .replace(/"(?:[^"\\]|\\.){2,}"/g, '"…"')
    .replace(/:\s*$/, '');
  for (const [pattern, words] of PLAIN_WORDS) out = out.replace(pattern, words);
  return out.charAt(0).toLowerCase() + out.slice(1);
}
