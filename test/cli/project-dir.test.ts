// One way to name the project directory on every command: -C/--dir, or the positional argument.
import { describe, expect, it } from 'vitest';
import { copyExample, runCli } from '../helpers/cli.js';

describe('-C/--dir names the project on every command', () => {
  it.each([[['validate']], [['graph']], [['plan', '--detailed-exitcode']]])('%j -C <dir> works from another directory', async (args) => {
    const dir = await copyExample('quickstart');
    const result = await runCli([...args, '-C', dir]);
    expect([0, 2]).toContain(result.code);
  });

  it('apply, whoami -e, an operations command and history all take -C', async () => {
    const dir = await copyExample('quickstart');
    const apply = await runCli(['apply', '-C', dir, '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    const whoami = await runCli(['whoami', '-e', 'dev', '-C', dir, '--json']);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ environment: { slug: 'dev' }, credential: 'api-key' });
    const sandboxes = await runCli(['sandboxes', '-C', dir, '--json']);
    expect(sandboxes.code, sandboxes.stderr).toBe(0);
    const history = await runCli(['history', 'support', '-e', 'dev', '-C', dir, '--json']);
    expect(history.code, history.stderr).toBe(0);
  });

  it('the argument and -C must agree', async () => {
    const dir = await copyExample('quickstart');
    const result = await runCli(['plan', dir, '-C', `${dir}/agents`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('two project directories');
    expect(result.stderr).not.toContain('    at ');
  });
});
