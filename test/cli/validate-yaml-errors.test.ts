// End to end: `agentform validate` reports each YAML mistake of test/fixtures/yaml-errors (golden
// lines in its expected.txt) at file:line:col, in plain words, with exit 1 and no stack trace: in
// resource files and in agentform.yaml alike (issue 44).
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers/cli.js';

const FIXTURES = join(REPO, 'test', 'fixtures', 'yaml-errors');
const CASES = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.yaml'))
  .sort();
const EXPECTED = readFileSync(join(FIXTURES, 'expected.txt'), 'utf8')
  .split('\n')
  .filter((line) => line !== '');
const ROOT = 'version: 1\nenvironments:\n  dev:\n    url: local\n';

function summary(errors: number): string {
  return `${errors} error${errors === 1 ? '' : 's'}, 0 warnings.`;
}

describe('agentform validate on YAML mistakes', () => {
  it('reports the mistake of every resource file at its place', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentform-yaml-errors-'));
    writeFileSync(join(dir, 'agentform.yaml'), ROOT);
    for (const name of CASES) copyFileSync(join(FIXTURES, name), join(dir, name));
    const result = await runCli(['validate', '.'], { cwd: dir });
    expect(result).toEqual({ code: 1, stdout: `${[...EXPECTED, summary(EXPECTED.length)].join('\n')}\n`, stderr: '' });
  });

  it.each(CASES)('reports the mistake of %s written as agentform.yaml at its place', async (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'agentform-yaml-errors-'));
    copyFileSync(join(FIXTURES, name), join(dir, 'agentform.yaml'));
    const expected = EXPECTED.filter((line) => line.startsWith(`${name}:`)).map((line) => `agentform.yaml${line.slice(name.length)}`);
    const result = await runCli(['validate', '.'], { cwd: dir });
    expect(result).toEqual({ code: 1, stdout: `${[...expected, summary(expected.length)].join('\n')}\n`, stderr: '' });
  });

  it('gives the same place and words with --json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentform-yaml-errors-'));
    writeFileSync(join(dir, 'agentform.yaml'), ROOT);
    copyFileSync(join(FIXTURES, 'duplicate-key.yaml'), join(dir, 'agents.yaml'));
    const result = await runCli(['validate', '.', '--json'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      valid: false,
      errors: 1,
      warnings: 0,
      problems: [{ severity: 'error', message: 'duplicate key "model" (first at line 4)', file: 'agents.yaml', line: 6, col: 3 }],
    });
  });
});
