// YAML mistakes are reported at the mistake, in plain words (issue 44): golden messages for every
// file under test/fixtures/yaml-errors (expected.txt: `case.yaml:line:col: message`), the same
// through the plain parser and the yaml library, with LF or CRLF line ends; never the source text
// back, never the library's jargon, never a throw, over seeded mutations of the repository's YAML.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePlainYaml } from '../../src/config/yaml-plain.js';
import { parseYamlText } from '../../src/config/yaml-source.js';
import { seededRandom } from '../../src/server/faults.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'yaml-errors');
const REPO = join(import.meta.dirname, '..', '..');
const CASES = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.yaml'))
  .sort();
const EXPECTED = readFileSync(join(FIXTURES, 'expected.txt'), 'utf8')
  .split('\n')
  .filter((line) => line !== '');

/** What the words of a message may not hold: the library's terms, its error codes and class names, the old redaction. */
const JARGON = /\(text\)|YAML\w*Error|\b[A-Z]+_[A-Z_]+\b|implicit|compact|flow (sequence|map|collection)|\bscalar|\btoken|\bnode\b|YAML stream|indicator/i;

/** A message's own words: what it quotes (a key, a character) is the user's. */
function wordsOf(message: string): string {
  return message.replace(/"(?:[^"\\]|\\.)*"/g, '""');
}

function linesFor(file: string, text: string, env: NodeJS.ProcessEnv): string[] {
  return parseYamlText(file, text, env).problems.map(
    (problem) =>
      `${problem.location?.file}:${problem.location?.line}:${problem.location?.col}: ${problem.severity === 'warning' ? 'warning: ' : ''}${problem.message}`,
  );
}

const PARSERS: Array<[string, NodeJS.ProcessEnv]> = [
  ['the plain parser', {}],
  ['the yaml library', { AGENTFORM_YAML_PARSER: 'library' }],
];

describe('golden YAML error messages', () => {
  it('has an expected line for every case, and a case for every expected line', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
    const named = new Set(EXPECTED.map((line) => line.slice(0, line.indexOf(':'))));
    expect([...named].sort()).toEqual(CASES);
  });

  it.each(CASES)('%s: the plain parser leaves it to the library', (name) => {
    expect(parsePlainYaml(readFileSync(join(FIXTURES, name), 'utf8'))).toBeUndefined();
  });

  for (const [parser, env] of PARSERS) {
    it.each(CASES)(`%s through ${parser}`, (name) => {
      const text = readFileSync(join(FIXTURES, name), 'utf8');
      expect(linesFor(name, text, env)).toEqual(EXPECTED.filter((line) => line.startsWith(`${name}:`)));
    });
  }

  it.each(CASES)('%s with CRLF line ends: the same lines and columns', (name) => {
    const text = readFileSync(join(FIXTURES, name), 'utf8').replaceAll('\n', '\r\n');
    expect(linesFor(name, text, {})).toEqual(EXPECTED.filter((line) => line.startsWith(`${name}:`)));
  });

  it('says no parser jargon', () => {
    for (const line of EXPECTED) expect(wordsOf(line)).not.toMatch(JARGON);
  });
});

describe('the source text is not quoted back', () => {
  // A secret pasted into the wrong place is the likeliest text to break a file.
  const SECRET = 'sk-live-4f9a8b7c6d5e';
  it.each([
    ['an unclosed quote', `kind: Agent\nspec:\n  system: "${SECRET}\n  other: 1\n`],
    ['an unclosed single quote', `kind: Agent\nspec:\n  system: '${SECRET}\n`],
    ['a line with no key', `kind: Agent\nspec:\n  model: x\n  ${SECRET}\n  other: 1\n`],
    ['a line pasted at the top', `${SECRET}\nkind: Agent\n`],
    ['a colon inside it', `kind: Agent\nspec: ${SECRET}: x\n`],
    ['a deeper line after it', `kind: Agent\nname: ${SECRET}\n  spec: x\n`],
    ['a bracket after it', `kind: Agent\nspec: [${SECRET}]]\n`],
  ])('%s', (_name, text) => {
    const lines = linesFor('a.yaml', text, {});
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain(SECRET);
  });
});

describe('mutations of the repository YAML', () => {
  const files = execFileSync('git', ['ls-files', '-z', '*.yaml', '*.yml'], { cwd: REPO, encoding: 'utf8' })
    .split('\0')
    .filter((name) => name !== '' && !name.startsWith('test/fixtures/yaml-errors/'));
  const PIECES = ['"', "'", '[', '{', ']', '}', ': ', ':', '\t', ' ', '  ', '- ', '#', ',', '\n', '| ', '&a ', '*', '!', '%', '@', '`', '? '];

  it('never throw, place every error inside the file, and say no jargon', () => {
    const random = seededRandom(44);
    let errors = 0;
    for (let iteration = 0; iteration < 3000; iteration++) {
      const file = files[Math.floor(random() * files.length)] as string;
      let text = readFileSync(join(REPO, file), 'utf8');
      for (let mutation = 1 + Math.floor(random() * 2); mutation > 0; mutation--) {
        const at = Math.floor(random() * text.length);
        const piece = random() < 0.3 ? '' : (PIECES[Math.floor(random() * PIECES.length)] as string);
        text = text.slice(0, at) + piece + text.slice(at + (piece === '' ? 1 : 0));
      }
      const lines = text.split('\n');
      for (const problem of parseYamlText('f.yaml', text, { AGENTFORM_YAML_PARSER: 'library' }).problems) {
        if (problem.severity !== 'error') continue;
        errors++;
        const { line, col } = problem.location ?? { line: 0, col: 0 };
        const where = `${line}:${col} in ${JSON.stringify(text)}`;
        expect(line, where).toBeGreaterThanOrEqual(1);
        expect(line, where).toBeLessThanOrEqual(lines.length);
        expect(col, where).toBeGreaterThanOrEqual(1);
        expect(col, where).toBeLessThanOrEqual((lines[line - 1] as string).length + 1);
        expect(wordsOf(problem.message), where).not.toMatch(JARGON);
      }
    }
    expect(errors).toBeGreaterThan(1000);
  });
});
