// Reading a YAML file's text around a syntax error, to say where the mistake is in the user's terms
// (yaml-errors.ts): the library notices most mistakes a token or a line after them. Pure: text in,
// offsets and words out; it runs only for a file with a syntax error.

/** A file's text with its lines, to move between offsets, lines and columns (all 0-based here). */
export class SourceText {
  readonly text: string;
  private readonly starts: number[] = [0];

  constructor(text: string) {
    this.text = text;
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) this.starts.push(at + 1);
  }

  lineOf(offset: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  lineStart(line: number): number {
    return this.starts[line] ?? this.text.length;
  }

  /** Where the line's text ends, before its LF or CRLF. */
  lineEnd(line: number): number {
    const next = this.starts[line + 1];
    if (next === undefined) return this.text.length;
    return this.text.charCodeAt(next - 2) === 0x0d ? next - 2 : next - 1;
  }

  /** The number of spaces the line starts with. */
  indentOf(line: number): number {
    const start = this.lineStart(line);
    let at = start;
    while (this.text.charCodeAt(at) === 0x20) at++;
    return at - start;
  }

  /** Whether the line holds more than spaces and a comment. */
  hasContent(line: number): boolean {
    const at = this.lineStart(line) + this.indentOf(line);
    return at < this.lineEnd(line) && this.text[at] !== '#';
  }

  /** The first offset at or after `offset`, on its line, that is not a space (the line's end if none). */
  contentFrom(offset: number): number {
    const end = this.lineEnd(this.lineOf(offset));
    let at = offset;
    while (at < end && this.text.charCodeAt(at) === 0x20) at++;
    return at;
  }
}

/** A column where a block collection around a line starts, and the line above it is seen on (0-based). */
interface OpenColumn {
  column: number;
  line: number;
}

/**
 * The columns a line could line up with: those of the block collections open around it, nearest
 * (deepest) first, read off the lines above it. A line `- key: value` opens two, at the dash and at
 * the key.
 */
function openColumns(source: SourceText, line: number): OpenColumn[] {
  const open: OpenColumn[] = [];
  let below = Number.POSITIVE_INFINITY;
  for (let above = line - 1; above >= 0 && below > 0; above--) {
    if (!source.hasContent(above)) continue;
    const start = source.lineStart(above);
    const columns = [source.indentOf(above)];
    // `- ` opens a sequence item whose content starts a collection of its own further right.
    for (let at = start + (columns[0] as number); source.text[at] === '-' && source.text[at + 1] === ' '; ) {
      at = source.contentFrom(at + 1);
      columns.push(at - start);
    }
    for (const column of columns.reverse()) {
      if (column >= below) continue;
      open.push({ column, line: above });
      below = column;
    }
  }
  return open;
}

/**
 * "bad indentation: ..." for the line whose text starts at `content`, naming the columns it could
 * line up with; undefined when it already lines up with one, or there is none (the mistake is another).
 */
export function misalignedLine(source: SourceText, content: number): string | undefined {
  const line = source.lineOf(content);
  const column = content - source.lineStart(line);
  const open = openColumns(source, line);
  if (open.some((candidate) => candidate.column === column)) return undefined;
  const deeper = open.filter((candidate) => candidate.column > column).at(-1);
  const shallower = open.find((candidate) => candidate.column < column);
  const choices = [deeper, shallower].flatMap((candidate) => (candidate ? [`line ${candidate.line + 1} (column ${candidate.column + 1})`] : []));
  if (choices.length === 0) return undefined;
  return `bad indentation: this line starts at column ${column + 1}; line it up with ${choices.join(' or ')}`;
}

/**
 * The offset after the quoted scalar that starts at `at` (`"` or `'`), or -1 when it is not closed
 * in the text. A double quote is escaped by a backslash; a single quote by another.
 */
export function closingQuoteEnd(text: string, at: number): number {
  const quote = text[at];
  for (let position = at + 1; position < text.length; position++) {
    const char = text[position];
    if (quote === '"' && char === '\\') position++;
    else if (char === quote) {
      if (quote === "'" && text[position + 1] === "'") position++;
      else return position + 1;
    }
  }
  return -1;
}

/**
 * The `:` that makes a key of the value starting at `at`: the first `:` after it followed by a space,
 * a line end or the text's end (a quoted value is skipped first: its colons are its own); -1 if none.
 */
export function mappingColonAfter(text: string, at: number): number {
  let from = at;
  if (text[at] === '"' || text[at] === "'") {
    from = closingQuoteEnd(text, at);
    if (from < 0) return -1;
  }
  for (let colon = text.indexOf(':', from); colon >= 0; colon = text.indexOf(':', colon + 1)) {
    const next = text[colon + 1];
    if (next === undefined || next === ' ' || next === '\n' || next === '\r' || next === '\t') return colon;
  }
  return -1;
}
