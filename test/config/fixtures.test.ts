// Every broken project under test/fixtures/invalid reports exactly the problems in its
// expected.txt (file:line:col: [warning: ]path: message, relative to the project); every valid
// fixture and every example validates clean.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateProject } from '../../src/config/index.js';
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
    const expected = readFileSync(join(dir, 'expected.txt'), 'utf8').split('\n').filter((line) => line.trim() !== '');
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
