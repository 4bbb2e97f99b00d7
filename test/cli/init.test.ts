// `agentform init` end to end: a new project that validates and plans at once, with no secret set,
// and that never overwrites anything.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaFiles } from '../../src/config/editor-support.js';
import { runCli } from '../helpers/cli.js';

async function emptyDir(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'agentform-init-')), 'project');
}

/** Every file below `dir` and its bytes (base64), to tell that a run changed nothing else. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of (await readdir(dir, { recursive: true, withFileTypes: true })).filter((candidate) => candidate.isFile())) {
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = (await readFile(path)).toString('base64');
  }
  return out;
}

const RECIPES = [
  ['github', ['.github/workflows/agentform-apply.yml', '.github/workflows/agentform-drift.yml', '.github/workflows/agentform-plan.yml']],
  ['gitlab', ['.gitlab-ci.yml']],
] as const;

describe('agentform init', () => {
  it('scaffolds a project that validates and plans right away, without OPENAI_API_KEY', async () => {
    const dir = await emptyDir();
    const init = await runCli(['init', dir]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('agentform validate');
    const files = (await readdir(dir, { recursive: true })).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        '.gitignore',
        '.vscode/settings.json',
        'agentform.yaml',
        'agents/assistant.yaml',
        'prompts/assistant.md',
        'providers.yaml',
        ...schemaFiles().map((file) => file.path),
      ]),
    );
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('.agentform/\n');

    const validate = await runCli(['validate'], { cwd: dir });
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir });
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain('agent/assistant');
    expect(plan.stdout).toContain('Plan: 2 to add');
  });

  it('applies once the provider secret is set, and then plans clean', async () => {
    const dir = await emptyDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    const env = { OPENAI_API_KEY: 'sk-init-test' };
    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env });
    expect(plan.code, plan.stdout).toBe(0);
  });

  it.each(['agentform.yaml', 'agentform.yml'])('refuses a directory that is already a project (%s)', async (rootFile) => {
    const dir = await emptyDir();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, rootFile), 'version: 1\n');
    const result = await runCli(['init', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is a project already');
    expect(result.stderr).not.toContain('    at ');
    expect(existsSync(join(dir, 'providers.yaml'))).toBe(false);
  });

  it('never overwrites a file: lists every clash and writes nothing', async () => {
    const dir = await emptyDir();
    await mkdir(join(dir, 'prompts'), { recursive: true });
    await writeFile(join(dir, 'prompts', 'assistant.md'), 'mine\n');
    await writeFile(join(dir, 'providers.yaml'), '# mine\n');
    const result = await runCli(['init', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('providers.yaml, prompts/assistant.md');
    expect(existsSync(join(dir, 'agentform.yaml'))).toBe(false);
    expect(await readFile(join(dir, 'prompts', 'assistant.md'), 'utf8')).toBe('mine\n');
  });

  it('adds .agentform/ to an existing .gitignore and keeps existing editor settings', async () => {
    const dir = await emptyDir();
    await mkdir(join(dir, '.vscode'), { recursive: true });
    await writeFile(join(dir, '.gitignore'), 'node_modules/');
    await writeFile(join(dir, '.vscode', 'settings.json'), '{"editor.tabSize": 2}\n');
    const result = await runCli(['init', dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('node_modules/\n.agentform/\n');
    expect(await readFile(join(dir, '.vscode', 'settings.json'), 'utf8')).toBe('{"editor.tabSize": 2}\n');
    expect(result.stdout).toContain('.vscode/settings.json exists, left as it is');
  });

  it.each(RECIPES)('--ci %s writes the CI recipe, and the project still validates', async (system, expected) => {
    const dir = await emptyDir();
    const result = await runCli(['init', dir, '--ci', system]);
    expect(result.code, result.stderr).toBe(0);
    for (const file of expected) expect(existsSync(join(dir, file)), file).toBe(true);
    // The recipe (and gitlab-ci-local's variables file beside it) are dot-files: never resource files.
    await writeFile(join(dir, '.gitlab-ci-local-variables.yml'), 'GITLAB_API_TOKEN: x\n');
    const validate = await runCli(['validate'], { cwd: dir });
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
  });

  it.each(RECIPES)('--ci %s in an existing project adds the recipe and changes no other file', async (system, expected) => {
    const dir = await emptyDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    const before = await snapshot(dir);
    // From the parent directory, so that the output names it `project`.
    const result = await runCli(['init', 'project', '--ci', system], { cwd: join(dir, '..') });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`recipe to the project in project: ${expected.join(', ')}. No other file was changed.`);
    const after = await snapshot(dir);
    expect(Object.keys(after).sort()).toEqual([...Object.keys(before), ...expected].sort());
    for (const [path, bytes] of Object.entries(before)) expect(after[path], path).toBe(bytes);
    const validate = await runCli(['validate'], { cwd: dir });
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);

    // Again: the recipe is there already, and nothing is written.
    const again = await runCli(['init', dir, '--ci', system]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('recipe is in');
    expect(again.stdout).toContain('Nothing was written.');
    expect(await snapshot(dir)).toEqual(after);
  });

  it.each(RECIPES)('--ci %s in an existing project never overwrites a recipe file of its own, and then writes nothing', async (system, expected) => {
    const dir = await emptyDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    const mine = expected[expected.length - 1] as string;
    await mkdir(join(dir, mine, '..'), { recursive: true });
    await writeFile(join(dir, mine), '# my own pipeline\n');
    const before = await snapshot(dir);
    const result = await runCli(['init', 'project', '--ci', system], { cwd: join(dir, '..') });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`init never overwrites a file, and these exist in project with other content: ${mine}; nothing was written`);
    expect(result.stderr).not.toContain('    at ');
    expect(await snapshot(dir)).toEqual(before);
  });
});
