// Random YAML documents with comments put between any two of their tokens (issue 45, item 5): where
// the plain parser and the yaml library read a text differently, the configuration applied depends on
// which of them ran (this found a scalar after a comment line, which the library reads running on
// over the entries below it, or as an error). A document is first written with a
// slot between every two tokens; a few slots then get a comment (with or without a space after `#`,
// with or without one before it, with a tab near it, with the rest of the line moved to the next line
// at some indentation) and the others stay empty.

/** Marks a place a comment may go; never left in a generated document. */
const SLOT = '\u0001';

const SCALARS = ['user', 'team', 'x y', '1', '-2', '-x', 'a#b', 'a:b', '~', 'true', "'quoted'", '"double"', '""', '[]', '{}'];
const FLOW_SCALARS = SCALARS.filter((scalar) => !/[#:[\]{}]/.test(scalar));
const KEYS = ['identities', 'k', 'name', 'a-b', '"q"'];
const COMMENT_BODIES = ['c', ' c', '', '#', ' a: b', '- x', ':', '[', '|', "'", ' #'];
const BLOCK_LINES = ['text', '  more', '# not a comment', 'x #y', ''];

/** A random document with between one and `comments` comments (none when 0) put in it. */
export function commentPlacementDocument(random: () => number, comments = 3): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const count = (most: number) => 1 + Math.floor(random() * most);
  const step = ' '.repeat(count(4));
  const S = SLOT;

  const flow = (depth: number): string => {
    if (depth > 1 || random() < 0.4) return pick(FLOW_SCALARS);
    if (random() < 0.5) return `[${S}${Array.from({ length: count(3) }, () => `${flow(depth + 1)}${S}`).join(`,${S} `)}]`;
    const keys = [...new Set(Array.from({ length: count(3) }, () => pick(['a', 'b', 'c'])))];
    return `{${S}${keys.map((key) => `${key}:${S} ${flow(depth + 1)}${S}`).join(`,${S} `)}}`;
  };
  const block = (indent: string): string => {
    const lines = Array.from({ length: count(3) }, () => pick(BLOCK_LINES));
    if (lines[0] === '' || lines[0]?.startsWith(' ')) lines[0] = 'first';
    return `${pick(['|', '|-', '>', '>-'])}${S}\n${lines.map((line) => (line === '' ? '' : `${indent}${line}${S}`)).join('\n')}`;
  };
  /** What follows `key:` or `-`: on the same line, or on the next lines. */
  const value = (indent: string, depth: number): string => {
    const inner = indent + step;
    const choice = depth > 2 ? random() * 0.5 : random();
    if (choice < 0.25) return `${S} ${pick(SCALARS)}${S}`;
    if (choice < 0.3) return `${S}\n${inner}${pick(SCALARS)}${S}`;
    // A plain scalar wrapped over more lines.
    if (choice < 0.35) return `${S} ${pick(['first', 'x y'])}${S}\n${inner}${pick(['more', 'words'])}${S}`;
    if (choice < 0.5) return `${S} ${flow(0)}${S}`;
    if (choice < 0.6) return `${S} ${block(inner)}`;
    if (choice < 0.8) return `${S}\n${mapping(inner, depth + 1)}`;
    return `${S}\n${sequence(random() < 0.3 ? indent : inner, depth + 1)}`;
  };
  const mapping = (indent: string, depth: number): string => {
    const keys = [...new Set(Array.from({ length: count(3) }, () => pick(KEYS)))];
    // Now and then an explicit key (`? key` then `: value`), which the plain parser leaves to the library.
    const entry = (key: string) =>
      random() < 0.05 ? `${indent}?${S} ${key}${S}\n${indent}:${value(indent, depth)}` : `${indent}${key}:${value(indent, depth)}`;
    return keys.map(entry).join(`${S}\n`);
  };
  const sequence = (indent: string, depth: number): string =>
    Array.from({ length: count(3) }, () => {
      // `- key: value` and its siblings, at the column after "- ".
      if (depth < 3 && random() < 0.2) return `${indent}-${S} ${mapping(`${indent}  `, depth + 1).trimStart()}`;
      return `${indent}-${value(indent, depth)}`;
    }).join(`${S}\n`);

  const skeleton = `${S}${random() < 0.3 ? sequence('', 0) : mapping('', 0)}${S}\n`;
  const parts = skeleton.split(SLOT);
  // Mostly one or two comments, so that most documents stay plain enough to compare.
  const filled = new Set(Array.from({ length: comments === 0 ? 0 : count(comments) }, () => Math.floor(random() * (parts.length - 1))));
  const text = parts.reduce((out, part, slot) => (slot === 0 ? part : `${out}${filled.has(slot - 1) ? slotFilling(random, pick) : ''}${part}`));
  return random() < 0.1 ? text.replaceAll('\n', '\r\n') : text;
}

/** A comment as people (and editors) write them, and as they should not; or only a line break, which moves the rest of the line down. */
function slotFilling(random: () => number, pick: <T>(items: readonly T[]) => T): string {
  const body = `#${pick(COMMENT_BODIES)}`;
  const indentation = ' '.repeat(Math.floor(random() * 8));
  const before = pick(['', ' ', ' ', '  ', ' ', '\t', ' \t']);
  const choice = random();
  // After the comment, the rest of the line: on it (commented out, or after a `#` in a token), or on the next line.
  if (choice < 0.4) return `${before}${body}`;
  if (choice < 0.75) return `${before}${body}\n${indentation}`;
  if (choice < 0.9) return `\n${indentation}${body}\n${indentation}`;
  return `\n${indentation}`;
}
