// `agentform completion SHELL`: the scripts parse in their shells, and a bash session with the
// script sourced completes commands and environment names through the built CLI.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO, cliEnv, runCli } from '../helpers/cli.js';

const PROJECT = join(REPO, 'test/fixtures/completion');

function installed(shell: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
}

async function script(shell: string): Promise<string> {
  const result = await runCli(['completion', shell]);
  expect(result.code, result.stderr).toBe(0);
  const file = join(await mkdtemp(join(tmpdir(), 'agentform-completion-')), `agentform.${shell}`);
  await writeFile(file, result.stdout);
  return file;
}

describe('agentform completion', () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const present = installed(shell);
    it.skipIf(!present)(`the ${shell} script passes ${shell} -n${present ? '' : ` (skipped: ${shell} is not installed)`}`, async () => {
      const check = spawnSync(shell, ['-n', await script(shell)], { encoding: 'utf8' });
      expect(check.status, check.stderr).toBe(0);
    });
  }

  it('refuses an unknown shell', async () => {
    const result = await runCli(['completion', 'tcsh']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bash, zsh, fish');
  });

  it.each([['plan'], ['apply']])('__complete offers addresses after %s --exclude, as after --target', async (command) => {
    for (const flag of ['--exclude', '--target']) {
      const result = await runCli(['__complete', '--', command, flag, 'agent/'], { cwd: PROJECT });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.split('\n').filter(Boolean)).toEqual(['agent/canary', 'agent/support']);
    }
  });

  it('__complete offers environment names after plan --envs, the next one after a comma', async () => {
    const first = await runCli(['__complete', '--', 'plan', '--envs', ''], { cwd: PROJECT });
    expect(first.stdout.split('\n').filter(Boolean)).toEqual(['dev', 'staging']);
    const next = await runCli(['__complete', '--', 'plan', '--envs', 'dev,'], { cwd: PROJECT });
    expect(next.stdout.split('\n').filter(Boolean)).toEqual(['dev,staging']);
  });

  describe('in a shell session', () => {
    let bin: string;
    beforeAll(async () => {
      // `agentform` on PATH is the built CLI, as an installed package puts it there.
      bin = await mkdtemp(join(tmpdir(), 'agentform-bin-'));
      await writeFile(join(bin, 'agentform'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
      await chmod(join(bin, 'agentform'), 0o755);
    });

    const quoted = (words: string[]) => words.map((word) => `'${word}'`).join(' ');
    // Each shell's own way to ask its completion for the words typed (the last one being completed).
    const sessions: Record<string, (file: string, words: string[]) => string> = {
      bash: (file, words) =>
        `source "${file}"\nCOMP_WORDS=(${quoted(words)})\nCOMP_CWORD=${words.length - 1}\n_agentform_complete\nprintf '%s\\n' "\${COMPREPLY[@]}"\n`,
      // compadd and _files exist only inside zsh's completion system: stand-ins print what is offered.
      zsh: (file, words) =>
        `compadd() { shift; print -l -- "$@"; }\n_files() { print FILES; }\nsource "${file}"\nwords=(${quoted(words)})\nCURRENT=${words.length}\n_agentform_complete\n`,
      fish: (file, words) => `source "${file}"\ncomplete -C${quoted([words.join(' ')])}\n`,
    };

    const cases: Array<[string, string[], string[]]> = [
      ['agentform pl', ['agentform', 'pl'], ['plan']],
      ['agentform plan -e ', ['agentform', 'plan', '-e', ''], ['dev', 'staging']],
      ['agentform apply --target agent/', ['agentform', 'apply', '--target', 'agent/'], ['agent/canary', 'agent/support']],
      ['agentform plan --exclude agent/', ['agentform', 'plan', '--exclude', 'agent/'], ['agent/canary', 'agent/support']],
    ];
    for (const shell of ['bash', 'zsh', 'fish']) {
      const present = installed(shell);
      it.skipIf(!present).each(cases)(`${shell}${present ? '' : ` (skipped: ${shell} is not installed)`} completes \`%s\``, async (_, words, expected) => {
        const file = await script(shell);
        const env = cliEnv({ PATH: `${bin}:${process.env.PATH ?? ''}` });
        const output = execFileSync(
          shell,
          shell === 'bash' ? ['--norc', '--noprofile', '-c', sessions.bash!(file, words)] : ['-c', sessions[shell]!(file, words)],
          {
            cwd: PROJECT,
            env,
            encoding: 'utf8',
          },
        );
        expect(output.split('\n').filter(Boolean)).toEqual(expected);
      });
    }
  });
});
