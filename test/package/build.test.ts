// The build as a developer uses it from a Git checkout: the CLI runs directly and through `npx`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, REPO } from '../helpers/cli.js';
import { VERSION } from '../../src/cli/version.js';

const run = promisify(execFile);

describe('the built CLI in a checkout', () => {
  it('is executable, so ./dist/cli/agentform.js runs as a command', async () => {
    expect(statSync(CLI).mode & 0o111).toBe(0o111);
    const { stdout } = await run(CLI, ['--version']);
    expect(stdout.trim()).toBe(VERSION);
  });

  it('runs as `npx agentform` inside the clone, without npm link', async () => {
    const { stdout } = await run('npx', ['--no-install', 'agentform', '--version'], { cwd: REPO });
    expect(stdout.trim()).toBe(VERSION);
  });
});

describe('the bundle', () => {
  // The bundle's chunks are not the tsc output: validators precompiled from other code would not
  // match its source hash and every run would compile the schemas again (~100 ms), silently.
  it('validates with its precompiled validators, never loading ajv’s compiler', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    const report = join(dir, 'loaded.json');
    const hook = join(dir, 'hook.cjs');
    writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(Object.keys(require.cache))));\n`);
    await run(process.execPath, ['--require', hook, CLI, 'validate', join(REPO, 'examples', 'quickstart')], { env: { ...process.env, AGENTFORM_PARSE_CACHE: 'off' } });
    const loaded = JSON.parse(readFileSync(report, 'utf8')) as string[];
    expect(loaded.some((file) => file.endsWith('schemas.precompiled.cjs'))).toBe(true);
    expect(loaded.filter((file) => file.includes(`ajv${sep}dist${sep}compile${sep}`))).toEqual([]);
  });
});
