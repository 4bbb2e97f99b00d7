// Only the command named on the line is declared; with no command (or an unknown one) all are, so
// --help lists them and a typo gets a suggestion. End to end against the built CLI.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandsFor } from '../../../src/cli/commands/index.js';
import { runCli } from '../../helpers/cli.js';
import { VERSION } from '../../../src/cli/version.js';

describe('COMMANDS', () => {
  it.each(Object.entries(COMMANDS))('%s registers the command of that name, and only it', (name, register) => {
    const program = new Command('agentform');
    register(program, { exitCode: 0 });
    expect(program.commands.map((command) => command.name())).toEqual([name]);
  });
});

describe('commandsFor', () => {
  it.each([
    [['plan', '-e', 'dev'], ['plan']],
    [['--url', 'local', 'apply', 'plan.json'], ['apply']],
    [['validate', 'plan'], ['validate']],
    [['hooks', 'redeliver', '--env', 'dev'], ['hooks']],
    [['help', 'lock'], ['lock']],
  ])('%j declares %j', (args, expected) => {
    const program = new Command('agentform');
    for (const register of commandsFor(['node', 'agentform', ...args])) register(program, { exitCode: 0 });
    expect(program.commands.map((command) => command.name())).toEqual(expected);
  });

  it.each([[['--version']], [['-V']]])('%j declares none', (args) => {
    expect(commandsFor(['node', 'agentform', ...args])).toEqual([]);
  });

  it.each([[[]], [['--help']], [['plam']], [['--version', '--help']]])('%j declares every command', (args) => {
    expect(commandsFor(['node', 'agentform', ...args])).toHaveLength(Object.keys(COMMANDS).length);
  });
});

describe('the CLI', () => {
  it('--version prints the version', async () => {
    const { code, stdout } = await runCli(['--version']);
    expect([code, stdout.trim()]).toEqual([0, VERSION]);
  });

  it('--help lists every command', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it('a command’s --help, `help <command>`, and a typo’s suggestion still work', async () => {
    const own = await runCli(['plan', '--help']);
    expect(own.stdout).toContain('--detailed-exitcode');
    const viaHelp = await runCli(['help', 'lock']);
    expect(viaHelp.stdout).toContain('Usage: agentform lock');
    const typo = await runCli(['plam']);
    expect([typo.code, typo.stderr]).toEqual([1, expect.stringContaining('Did you mean plan?')]);
  });
});
