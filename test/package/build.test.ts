// The build as a developer uses it from a Git checkout: the CLI runs directly and through `npx`.
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, REPO } from '../helpers/cli.js';
import { VERSION } from '../../src/cli/version.js';

const run = promisify(execFile);

describe('the built CLI in a checkout', () => {
  it('is executable, so ./dist/src/cli/main.js runs as a command', async () => {
    expect(statSync(CLI).mode & 0o111).toBe(0o111);
    const { stdout } = await run(CLI, ['--version']);
    expect(stdout.trim()).toBe(VERSION);
  });

  it('runs as `npx agentform` inside the clone, without npm link', async () => {
    const { stdout } = await run('npx', ['--no-install', 'agentform', '--version'], { cwd: REPO });
    expect(stdout.trim()).toBe(VERSION);
  });
});
