// The plain-YAML parser against the yaml library: for any text it accepts, it must give exactly what
// the library path gives (values, index, offsets, line starts, no problem); anything else it must
// refuse. Checked over every YAML file in the repository, the bench generator's projects, a table of
// cases at the subset's edges, seeded random mutations of all of them (and of their CRLF copies),
// random documents of the subset, and random documents with comments put anywhere
// (yaml-comment-placement.ts). PLAIN_SEED and PLAIN_ITERATIONS search further.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePlainYaml } from '../../src/config/yaml-plain.js';
import { commentPlacementDocument } from './yaml-comment-placement.js';
import { compareWithLibrary as compare } from './yaml-differential.js';
// Seeded, so that a failure can be reproduced.
import { seededRandom as seeded } from '../../src/server/faults.js';
import { parseWithLibrary } from '../../src/config/yaml-source.js';
import { writeProject } from '../../bench/lib/generate.js';

const ROOT = join(import.meta.dirname, '../..');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

/** Every YAML file git tracks in the repository (never what runs left behind), and a generated bench project's. */
function corpus(): Array<{ name: string; text: string }> {
  const tracked = execFileSync('git', ['ls-files', '-z', '*.yaml', '*.yml'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  const generated = writeProject({ agents: 40, connections: 6, providers: 3, agentsPerFile: 10 });
  try {
    return [
      ...tracked.map((name) => ({ name, text: readFileSync(join(ROOT, name), 'utf8') })),
      ...yamlFiles(generated).map((path) => ({ name: `generated/${relative(generated, path)}`, text: readFileSync(path, 'utf8') })),
    ];
  } finally {
    rmSync(generated, { recursive: true, force: true });
  }
}

const CASES: Array<[string, string, 'refused' | 'agreed']> = [
  [
    'scalars of the core schema',
    'a: 1\nb: -2\nc: 0x1F\nd: 0o17\ne: 1.50\nf: .5\ng: 1e3\nh: .inf\ni: -.Inf\nj: .NaN\nk: ~\nl: null\nm: NULL\nn: true\no: False\np: yes\nq: 012\nr: +3\ns: 1_000\nt: 2024-01-01\nu: 1.2.3\nv: -0\n',
    'agreed',
  ],
  [
    'strings that look like other things',
    "a: 'true'\nb: \"1\"\nc: ./path\nd: -v\ne: a#b\nf: a:b\ng: http://x/y?z=1\nh: ${env:X:-y}\ni: a, b\nj: 'it''s'\nk: \"q\\\"\\\\\\n\\t\\u00e9\"\n",
    'agreed',
  ],
  ['comments everywhere', '# top\na: 1 # one\n# between\nb: # nested\n  # inside\n  c: 2\n\n   \nd: [x, y] # flow\n', 'agreed'],
  ['empty values', 'a:\nb:\n  c:\nd: ""\ne: []\nf: {}\n', 'agreed'],
  ['compact sequences', 'a:\n- 1\n- b: 2\n  c: 3\n- - x\n  - y\nd: e\n', 'agreed'],
  ['indented sequences', 'a:\n  - 1\n  -\n    b: 2\n  - [3]\n', 'agreed'],
  ['literal blocks', 'a: |\n  one\n\n  two\n    three\n\nb: |-\n  x\n  # not a comment\nc: | # note\n   y\n', 'agreed'],
  ['literal block in a sequence', 'a:\n  - |\n    text\n  - b: |-\n      more\n', 'agreed'],
  ['nested flow collections', 'a: {b: [1, {c: d}], e: "f, g", \'h\': i}\n', 'agreed'],
  ['documents', '---\na: 1\n---\nb: 2\n', 'agreed'],
  ['documents without a first marker', '# c\na: 1\n---\n# c\nb: [1]\n', 'agreed'],
  ['a top-level sequence', '- a\n- b: c\n', 'agreed'],
  ['unicode', 'naïve: "ünïcödé 🎉"\nb: 日本\n', 'agreed'],
  ['no final newline', 'a: 1\nb: two', 'agreed'],
  ["numeric-looking keys are the library's", '1: a\n', 'refused'],
  ['boolean keys', 'true: a\n', 'refused'],
  ['quoted keys', '"1": a\n\'b c\': d\n', 'agreed'],
  ['duplicate keys', 'a: 1\na: 2\n', 'refused'],
  ['duplicate flow keys', 'a: {b: 1, b: 2}\n', 'refused'],
  ['anchors and aliases', 'a: &x 1\nb: *x\n', 'refused'],
  ['tags', 'a: !!str 1\n', 'refused'],
  ['merge keys', 'a: {b: 1}\n<<: {c: 2}\n', 'refused'],
  ['__proto__', '__proto__: {a: 1}\n', 'refused'],
  ['folded blocks', 'a: >\n  x\n  y\n\n  z\n\n\n  w\nb: >- # c\n  one\n  two\nc:\n  - >\n    in a list\n', 'agreed'],
  ['folded blocks with more-indented lines', 'a: >\n  x\n    y\n  z\n', 'refused'],
  ['folded blocks with trailing spaces', 'a: >\n  x \n  y\n', 'refused'],
  ['kept chomping', 'a: |+\n  x\n\n', 'refused'],
  ['indentation indicators', 'a: |2\n   x\n', 'refused'],
  ['a literal block at the end without a newline', 'a: |\n  x', 'refused'],
  [
    'multi-line plain scalars',
    'a: one\n  two\n\n  three\n\n\n      four  \nb:\n  on its own line\n  and the next\nc:\n- x\n  y\n-\n  z\nd: 1\n  2\n',
    'agreed',
  ],
  ['a multi-line plain scalar after a comment', 'a: one # c\n  two\n', 'refused'],
  ['a multi-line plain scalar with a comment line', 'a: one\n  # two\n', 'refused'],
  ['a block scalar header on the next line', 'a:\n  |\n    x\n', 'refused'],
  ['multi-line quoted scalars', 'a: "one\n  two"\n', 'refused'],
  ['multi-line flow collections', 'a: [1,\n  2]\n', 'refused'],
  ['tabs', 'a:\tb\n', 'refused'],
  ['CRLF line ends', 'a: 1\r\nb: |\r\n  x\r\n\r\n  y\r\nc: [d, "e"] # f\r\n---\r\n- g\r\n', 'agreed'],
  ['a CR alone', 'a: 1\rb: 2\n', 'refused'],
  ['a dash before CRLF', 'a: -\r\n', 'refused'],
  ['a byte order mark', '\ufeffa: 1\n', 'refused'],
  ['directives', '%YAML 1.2\n---\na: 1\n', 'refused'],
  ['document end markers', 'a: 1\n...\n', 'refused'],
  ['empty documents', '---\n---\na: 1\n---\n# nothing\n---\nb: 2\n---\n', 'agreed'],
  ['document markers with comments', '--- # first\na: 1\n---   # second\nb: 2\n', 'agreed'],
  ['only a marker', '---\n', 'agreed'],
  ['a marker at the end without a newline', 'a: 1\n---', 'agreed'],
  ['a marker before a comment without a space', '---# x\na: 1\n', 'refused'],
  ['an empty file', '', 'refused'],
  ['only comments', '# nothing\n', 'refused'],
  ['a top-level scalar', 'text\n', 'refused'],
  ['inline content after ---', '--- a: 1\n', 'refused'],
  ['a bad indentation', 'a:\n    b: 1\n  c: 2\n', 'refused'],
  ['a mapping in a mapping value', 'a: b: c\n', 'refused'],
  ['an unclosed quote', 'a: "b\n', 'refused'],
  ['an unclosed flow collection', 'a: [b\n', 'refused'],
  ['a trailing comma', 'a: [b,]\n', 'refused'],
  ['a space before the colon', 'a : b\n', 'refused'],
  ['escapes the parser does not read', 'a: "\\x41\\U0001F600\\e\\ "\n', 'refused'],
  ['complex keys', '? a\n: b\n', 'refused'],
  ['an empty sequence item', 'a:\n- \n- b\n', 'refused'],
  [
    'nesting too deep',
    `a: ${'['.repeat(101)}${']'.repeat(101)}\nb:\n${Array.from({ length: 101 }, (_, depth) => `${' '.repeat(depth + 1)}k:`).join('\n')} 1\n`,
    'refused',
  ],
  ['nesting up to the limit', `a: ${'['.repeat(100)}${']'.repeat(100)}\n`, 'agreed'],
  // Found by the random mutations below: a block sequence indicator inside a flow collection.
  ['a dash before a flow indicator', 'a: [-]\nb: {c: -}\n', 'refused'],
  ['a dash before text in a flow collection', 'a: [-1, -x]\n', 'agreed'],
  // Issue 45, item 5: what is applied must not depend on which parser ran. The issue's own cases,
  // then the ones the comment-placement generator found, where the library reads a scalar after a
  // comment line as running on over the entries below it (or as an error).
  ['a comment right after a dash, the item on the next line', 'identities:\n  -#c\n    user\n  - team\n', 'refused'],
  ['a comment right after a colon, the value on the next line', 'k:#c\n  v\n', 'refused'],
  ['a comment line and a blank line before an item', 'identities:\n  -\n#c\n\n    user\n  - team\n', 'refused'],
  ['a comment line and a blank line before a value', 'a:\n#c\n\n  x\nb: 1\n', 'refused'],
  ['two comment lines before a value', 'a:\n#c\n#d\n  x\nb: 1\n', 'refused'],
  ['a blank line and a comment line before a value', 'a:\n\n#c\n  x\nb: 1\n', 'refused'],
  ["a comment line at the key's column before a value", 'x:\n  a:\n  #[\n   x y\n  "q": true\n', 'refused'],
  ['a comment after the dash, the item on the next line', '- #c\n  x\n- y\n', 'refused'],
  ['a comment after the key, the value on the next line', 'a: #c\n  x\nb: 1\n', 'refused'],
  ['a blank line before a value', 'a:\n\n  x\nb: 1\n', 'refused'],
  ['a value on the next line', 'a:\n  x\nb:\n- y\n', 'agreed'],
  ['comment lines before a collection', 'a:\n#c\n\n  b: 1\nc: #d\n#e\n  - 1\n', 'agreed'],
];

describe('the plain YAML parser', () => {
  it.each(CASES)('%s', (_name, text, expected) => {
    expect(compare(text)).toBe(expected);
  });

  const files = corpus();

  it('reads the project files people write: the examples, the quickstart, the bench projects', () => {
    // Not the CI configurations beside the examples (anchors, multi-line scripts): not project files.
    const mustBePlain = files.filter(({ name }) => (name.startsWith('examples/') || name.startsWith('generated/')) && !/\/\.(gitlab-ci|github)/.test(name));
    expect(mustBePlain.length).toBeGreaterThan(10);
    for (const { name, text } of mustBePlain) {
      expect(parsePlainYaml(text), name).toBeDefined();
      expect(parsePlainYaml(text.replaceAll('\n', '\r\n')), `${name}, CRLF`).toBeDefined();
    }
  });

  it('agrees with the library on every YAML file in the repository', () => {
    const outcomes = files.map(({ text }) => compare(text));
    expect(files.length).toBeGreaterThan(150);
    // Most fixtures are plain; the refused ones are the invalid fixtures and the library's cases.
    expect(outcomes.filter((outcome) => outcome === 'agreed').length).toBeGreaterThan(files.length / 2);
  });

  it('agrees with the library on random mutations of those files, or refuses them', () => {
    const random = seeded(Number(process.env.PLAIN_SEED ?? 17));
    const small = [...files.map(({ text }) => text).filter((text) => text.length < 4000), ...CASES.map(([, text]) => text)];
    // And each with CRLF line ends, as checked out on Windows.
    const sources = [...small, ...small.map((text) => text.replace(/\r?\n/g, '\r\n'))];
    const pieces = [
      ' ',
      '  ',
      '\n',
      '\n  ',
      '-',
      '- ',
      '- - ',
      '  - ',
      ':',
      ': ',
      ':\n',
      '? ',
      '#',
      ' #',
      '"',
      "'",
      "''",
      '|',
      '|-',
      '|\n',
      '[',
      ']',
      '{',
      '}',
      ',',
      ', ',
      '---\n',
      '\n---\n',
      '...',
      '~',
      '0',
      '-1',
      '+1',
      '0x1F',
      '1e3',
      '.inf',
      '1.5',
      'x',
      'true',
      'null',
      '\\',
      '\\n',
      '\\u00e9',
      '&a',
      '*a',
      '!',
      '?',
      '%',
      '@',
      '>',
      '>-',
      '>\n',
      'é',
      '\t',
      '\r',
      '\r\n',
    ];
    let agreed = 0;
    const iterations = Number(process.env.PLAIN_ITERATIONS ?? 6000);
    for (let iteration = 0; iteration < iterations; iteration++) {
      let text = sources[Math.floor(random() * sources.length)] as string;
      const mutations = 1 + Math.floor(random() * 3);
      for (let mutation = 0; mutation < mutations; mutation++) text = mutate(text, random, pieces);
      if (compare(text) === 'agreed') agreed++;
    }
    // Enough of the mutants stay plain for the comparison to mean something.
    expect(agreed).toBeGreaterThan(iterations / 5);
  });

  it('agrees with the library on random documents with comments anywhere, or refuses them', () => {
    // The many-case run is test/config/yaml-plain-comments.stress.test.ts.
    const random = seeded(Number(process.env.PLAIN_SEED ?? 49));
    const iterations = Number(process.env.PLAIN_ITERATIONS ?? 3000);
    let agreed = 0;
    for (let iteration = 0; iteration < iterations; iteration++) if (compare(commentPlacementDocument(random)) === 'agreed') agreed++;
    expect(agreed).toBeGreaterThan(iterations / 10);
  });

  it('agrees with the library on random documents of the subset, and reads most of them', () => {
    const random = seeded(Number(process.env.PLAIN_SEED ?? 29));
    const iterations = Number(process.env.PLAIN_ITERATIONS ?? 3000);
    let agreed = 0;
    const refusedSamples: string[] = [];
    for (let iteration = 0; iteration < iterations; iteration++) {
      const text = randomDocument(random);
      if (compare(text) === 'agreed') agreed++;
      else if (process.env.PLAIN_DEBUG && parseWithLibrary('f.yaml', text).problems.length === 0) refusedSamples.push(text);
    }
    if (process.env.PLAIN_DEBUG) console.log(agreed, refusedSamples.length, refusedSamples.slice(0, 6).join('\n=====\n'));
    expect(agreed).toBeGreaterThan(iterations / 2);
  });
});

/**
 * A random document in the subset the plain parser reads, written the ways people write it:
 * indentation of 1 to 4 spaces, compact and indented sequences, nested flow collections, literal
 * and folded blocks (with blank, more-indented and comment-like lines), comments and blank lines between entries, every kind
 * of scalar.
 */
function randomDocument(random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const scalars = [
    'plain text',
    'x',
    '1',
    '-2',
    '0.5',
    '1e3',
    '.inf',
    '.nan',
    '0x1F',
    '0o7',
    '~',
    'null',
    'true',
    'False',
    'yes',
    'a:b',
    'a#b',
    'http://h/p?q=1',
    '${env:X:-y}',
    '-v',
    "'single ''quoted'''",
    '"double \\"quoted\\" \\n \\u00e9"',
    '""',
    "''",
    'ünï 🎉',
    '[]',
    '{}',
    '2024-01-01',
    '1_000',
    '+1',
    '012',
  ];
  const flowScalars = scalars.filter((scalar) => !/[,:#[\]{}]/.test(scalar) || /^["']/.test(scalar));
  const keys = ['name', 'kind', 'spec', 'a', 'b-c', 'd_e', 'f.g', '"quoted key"', "'k'", 'x1', 'URL', 'on', 'yes'];
  const plainKeys = keys.filter((key) => !/^["']/.test(key));
  const comment = () => (random() < 0.15 ? ` # ${pick(['note', 'a: b', '- x', '#'])}` : '');
  const between = (indent: string) => (random() < 0.1 ? `\n${random() < 0.5 ? '' : `${indent}# comment`}` : '');
  /** Distinct keys, as the library compares them (quotes aside). */
  const distinct = (from: readonly string[], count: number): string[] => {
    const used = new Set<string>();
    return Array.from({ length: count }, () => pick(from)).filter((key) => {
      const bare = key.replace(/["']/g, '');
      if (used.has(bare)) return false;
      used.add(bare);
      return true;
    });
  };
  const flow = (depth: number): string => {
    if (depth > 2 || random() < 0.5) return pick(flowScalars);
    if (random() < 0.5) return `[${Array.from({ length: Math.floor(random() * 3) }, () => flow(depth + 1)).join(', ')}]`;
    return `{${distinct(plainKeys, 1 + Math.floor(random() * 3))
      .map((key) => `${key}: ${flow(depth + 1)}`)
      .join(', ')}}`;
  };
  const literal = (indent: string): string => {
    const lines = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(['text', '  more indented', '# not a comment', '', 'key: value', '- item']));
    if (lines[0] === '' || lines[0]?.startsWith(' ')) lines[0] = 'first';
    return `${pick(['|', '|-', '>', '>-'])}${comment()}\n${lines.map((line) => (line === '' ? '' : `${indent}${line}`)).join('\n')}`;
  };
  /** A plain scalar over more lines, as a long description is wrapped. */
  const wrapped = (indent: string): string =>
    [
      'first words',
      ...Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => `${random() < 0.2 ? '\n' : ''}${indent}${pick(['more words', 'x', '- not an item', 'a-b', 'key-like: no', '12'])}`,
      ),
    ].join('\n');
  const value = (indent: string, step: string, depth: number): string => {
    const choice = random();
    if (choice < 0.05) return ` ${wrapped(indent + step)}`;
    if (choice < 0.08) return `\n${indent + step}${wrapped(indent + step)}`;
    if (depth > 4 || choice < 0.4) return ` ${pick(scalars)}${comment()}`;
    if (choice < 0.55) return ` ${flow(0)}${comment()}`;
    if (choice < 0.65) return ` ${literal(indent + step)}`;
    if (choice < 0.7) return comment();
    if (choice < 0.85) return `${comment()}\n${mapping(indent + step, step, depth + 1)}`;
    return `${comment()}\n${sequence(random() < 0.5 ? indent : indent + step, step, depth + 1)}`;
  };
  const mapping = (indent: string, step: string, depth: number): string =>
    distinct(keys, 1 + Math.floor(random() * 4))
      .map((key) => `${indent}${key}:${value(indent, step, depth)}`)
      .join(`${between(indent)}\n`);
  const sequence = (indent: string, step: string, depth: number): string =>
    Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
      const choice = random();
      if (depth > 4 || choice < 0.4) return `${indent}- ${pick(scalars)}${comment()}`;
      if (choice < 0.5) return `${indent}- ${flow(0)}`;
      if (choice < 0.55) return `${indent}- ${literal(indent + step)}`;
      // `- key: value` and its siblings, at the column after "- ".
      if (choice < 0.85) return `${indent}- ${mapping(`${indent}  `, step, depth + 1).trimStart()}`;
      return `${indent}-${comment()}\n${mapping(indent + step, step, depth + 1)}`;
    }).join('\n');
  const step = ' '.repeat(1 + Math.floor(random() * 4));
  const document = (): string => {
    const choice = random();
    if (choice < 0.05) return random() < 0.5 ? '' : '# empty';
    return choice < 0.2 ? sequence('', step, 0) : mapping('', step, 0);
  };
  const marker = () => (random() < 0.1 ? '--- # next' : '---');
  const documents = Array.from({ length: 1 + Math.floor(random() * 2) }, document);
  const text = `${random() < 0.2 ? `${marker()}\n` : ''}${documents.join(`\n${marker()}\n`)}${random() < 0.05 ? `\n${marker()}` : ''}${random() < 0.9 ? '\n' : ''}`;
  return random() < 0.2 ? text.replaceAll('\n', '\r\n') : text;
}

function mutate(text: string, random: () => number, pieces: readonly string[]): string {
  const at = Math.floor(random() * (text.length + 1));
  const choice = random();
  if (choice < 0.35) return text.slice(0, at) + (pieces[Math.floor(random() * pieces.length)] as string) + text.slice(at);
  if (choice < 0.6) return text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 3));
  if (choice < 0.8) {
    // A line indented or dedented.
    const lines = text.split('\n');
    const line = Math.floor(random() * lines.length);
    lines[line] = random() < 0.5 ? ` ${lines[line]}` : (lines[line] as string).replace(/^ /, '');
    return lines.join('\n');
  }
  // A line repeated or moved.
  const lines = text.split('\n');
  const from = Math.floor(random() * lines.length);
  const to = Math.floor(random() * lines.length);
  lines.splice(to, 0, lines[from] as string);
  if (random() < 0.5) lines.splice(from + (from >= to ? 1 : 0), 1);
  return lines.join('\n');
}
