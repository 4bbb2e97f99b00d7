// Drives the built CLI in a real pseudo-terminal (test/helpers/pty-driver.py): stdin is a TTY, so
// prompts appear, and Ctrl-C / Ctrl-D are keystrokes the terminal turns into SIGINT / end of input.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLI, REPO, cliEnv } from './cli.js';

const run = promisify(execFile);

export interface PtyStep {
  /** Text to wait for in the output before typing. */
  wait: string;
  /** What to type: `\u0003` is Ctrl-C, `\u0004` Ctrl-D. */
  send: string;
  /** Seconds to pause after the text appears (default 0.1). */
  delay?: number;
}

export async function runInTerminal(
  args: string[],
  steps: PtyStep[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutSeconds?: number } = {},
): Promise<{ code: number; output: string }> {
  const spec = {
    argv: [process.execPath, CLI, ...args],
    cwd: options.cwd ?? REPO,
    env: cliEnv({ TERM: 'xterm', ...options.env }),
    steps,
    timeout: options.timeoutSeconds ?? 30,
  };
  const { stdout } = await run('python3', [join(REPO, 'test', 'helpers', 'pty-driver.py'), JSON.stringify(spec)], { maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as { code: number; output: string };
}
