// At a real terminal (a pseudo-terminal): the confirmation prompt of apply and rollback, answered
// with Ctrl-C or Ctrl-D, cancels cleanly; a second Ctrl-C during apply stops at once.
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply as applyHeadless, generateProject, startPlane } from '../durability/harness.js';
import { copyExample, runCli } from '../helpers/cli.js';
import { runInTerminal } from '../helpers/pty.js';

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const PROMPT = "Only 'yes' will be accepted: ";

function expectNoCrash(output: string): void {
  expect(output).not.toMatch(/internal error|This is a bug|\n\s+at /);
}

describe('the confirmation prompt at a terminal', () => {
  it.each([
    ['Ctrl-C', CTRL_C],
    ['Ctrl-D', CTRL_D],
    ['no', 'no\r'],
  ])('apply: %s cancels, exit 1, nothing written', async (_name, keys) => {
    const dir = await copyExample('quickstart');
    const result = await runInTerminal(['apply', dir], [{ wait: PROMPT, send: keys }]);
    expect(result.output).toContain('Apply cancelled.');
    expect(result.code).toBe(1);
    expectNoCrash(result.output);
    const plan = await runCli(['plan', dir, '--detailed-exitcode']);
    expect(plan.stdout).toContain('Plan: 5 to add');
  });

  it('rollback: Ctrl-C cancels the same way', async () => {
    const dir = await copyExample('quickstart');
    expect((await runCli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await appendFile(join(dir, 'prompts', 'support.md'), '\nBe brief.\n');
    expect((await runCli(['apply', dir, '--auto-approve'])).code).toBe(0); // version 2
    const result = await runInTerminal(['rollback', 'support', '--to', '1', '-e', 'dev', '-C', dir], [{ wait: PROMPT, send: CTRL_C }]);
    expectNoCrash(result.output);
    expect(result.code, result.output).toBe(1);
    expect(result.output).toContain('Roll back cancelled.');
  });
});

describe('Ctrl-C during apply at a terminal', () => {
  it('once: lets requests in flight finish and exits 130; twice: stops at once, naming what was in flight', async () => {
    const plane = await startPlane({ faults: { latencyMs: 400 } });
    try {
      const project = await generateProject({ agents: 12, providers: 1, connections: 1, secrets: 1 }, 'terminal');
      const result = await runInTerminal(
        ['apply', project.dir, '--auto-approve', '--parallelism', '2'],
        [
          { wait: 'Creating...', send: CTRL_C },
          { wait: 'Ctrl-C again to stop at once', send: CTRL_C },
        ],
        { env: plane.cliEnv },
      );
      expect(result.output).toContain('Stopped at once. In flight, and possibly applied on the server:');
      expect(result.code).toBe(130);
      expectNoCrash(result.output);
      // Whatever was in flight, a re-run converges.
      const rerun = await applyHeadless(project, plane);
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    } finally {
      await plane.close();
    }
  }, 60_000);
});
