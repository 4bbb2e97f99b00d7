// Every broken project under test/fixtures/invalid reports exactly the problems in its
// expected.txt (file:line:col: [warning: ]path: message, relative to the project); every valid
// fixture and every example validates clean. And the same again with each plain file handed to the
// yaml library instead of the plain parser.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateProject } from '../../src/config/index.js';
import { parsePlainYaml } from '../../src/config/yaml-plain.js';
import { problemLine } from '../../src/render/problems.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
/** The only variable the fixtures may rely on; everything else is unset. */
const ENV = { PRESENT_VAR: 'present' };

function linesFor(dir: string, problems: Awaited<ReturnType<typeof validateProject>>): string[] {
  return problems.map((problem) => problemLine(problem, { projectDir: dir, cwd: dir, json: false, githubActions: false }));
}

describe('invalid fixtures', () => {
  const names = readdirSync(join(FIXTURES, 'invalid')).sort();
  it('has at least 40 broken projects', () => {
    expect(names.length).toBeGreaterThanOrEqual(40);
  });
  it.each(names)('%s', async (name) => {
    const dir = join(FIXTURES, 'invalid', name);
    const expected = readFileSync(join(dir, 'expected.txt'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const problems = await validateProject(dir, { env: ENV });
    expect(linesFor(dir, problems)).toEqual(expected);
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) expect(problem.location).toBeDefined();
  });
});

describe('valid fixtures', () => {
  it.each(readdirSync(join(FIXTURES, 'valid')).sort())('%s', async (name) => {
    const dir = join(FIXTURES, 'valid', name);
    expect(linesFor(dir, await validateProject(dir, { env: ENV }))).toEqual([]);
  });
});

describe('examples', () => {
  const env = { OPENAI_API_KEY: 'x', ANTHROPIC_API_KEY: 'x', CRM_SUPPORT_TOKEN: 'x', NPM_TOKEN: 'x' };
  it.each(['quickstart', 'gitops'])('%s validates clean', async (name) => {
    const dir = join(EXAMPLES, name);
    expect(linesFor(dir, await validateProject(dir, { env }))).toEqual([]);
  });
  it('quickstart needs no environment variable at all', async () => {
    const dir = join(EXAMPLES, 'quickstart');
    expect(linesFor(dir, await validateProject(dir, { env: {} }))).toEqual([]);
  });
});

/** The project's YAML files (relative paths), hidden directories included: the loader decides what it reads. */
function yamlFilesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

// The plain parser (src/config/yaml-plain.ts) must locate every problem exactly where the library
// path does: each fixture whose files are all plain YAML, copied with a comment holding a tab at the
// end of each file (which leaves every line where it was and sends the file to the library), reports
// exactly its expected.txt again.
describe('fixtures read by the yaml library instead of the plain parser', () => {
  const projects = [
    ...readdirSync(join(FIXTURES, 'invalid')).map((name) => ['invalid', name]),
    ...readdirSync(join(FIXTURES, 'valid')).map((name) => ['valid', name]),
  ].sort();
  const plainProjects = projects.filter(([kind, name]) => {
    const dir = join(FIXTURES, kind as string, name as string);
    return yamlFilesOf(dir).every((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      return text.trim() !== '' && text.endsWith('\n') && parsePlainYaml(text) !== undefined;
    });
  });
  it('covers most fixtures', () => {
    expect(plainProjects.length).toBeGreaterThan(projects.length / 2);
  });
  it.each(plainProjects)('%s/%s', async (kind, name) => {
    const original = join(FIXTURES, kind as string, name as string);
    const dir = join(mkdtempSync(join(tmpdir(), 'fixture-library-')), name as string);
    try {
      cpSync(original, dir, { recursive: true, filter: (source) => !source.includes(`${join('.agentform', 'cache')}`) });
      for (const file of yamlFilesOf(dir)) {
        const text = `${readFileSync(join(dir, file), 'utf8')}#\tread by the yaml library\n`;
        expect(parsePlainYaml(text)).toBeUndefined();
        writeFileSync(join(dir, file), text);
      }
      const expected =
        kind === 'invalid'
          ? readFileSync(join(original, 'expected.txt'), 'utf8')
              .split('\n')
              .filter((line) => line.trim() !== '')
          : [];
      expect(linesFor(dir, await validateProject(dir, { env: ENV }))).toEqual(expected);
    } finally {
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });
});
