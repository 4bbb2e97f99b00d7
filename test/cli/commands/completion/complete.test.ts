// What TAB offers (src/cli/commands/completion/complete.ts): from the real commander program, and
// from the project's files for -e and --target.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../../src/cli/commands/index.js';
import { completionCandidates } from '../../../../src/cli/commands/completion/complete.js';
import { registerComplete } from '../../../../src/cli/commands/completion/index.js';
import { addGlobalOptions } from '../../../../src/cli/global-options.js';

const PROJECT = 'test/fixtures/completion';

function program(): Command {
  const root = new Command('agentform');
  addGlobalOptions(root);
  for (const register of Object.values(COMMANDS)) register(root, { exitCode: 0 });
  registerComplete(root);
  return root;
}

describe('completionCandidates', () => {
  it.each([
    ['a command by its prefix', ['pl'], ['plan']],
    ['commands sharing a prefix', ['p'], ['plan', 'providers', 'promote']],
    ['an option of the command', ['plan', '--ta'], ['--target']],
    ['a global option after a command', ['plan', '--insec'], ['--insecure-http']],
    ['after a global option and its value', ['--url', 'local', 'pl'], ['plan']],
    ['an argument with choices', ['completion', ''], ['bash', 'zsh', 'fish']],
    ['an option with choices', ['graph', '--format', ''], ['mermaid', 'dot']],
    ['environments after -e', ['plan', '-C', PROJECT, '-e', ''], ['dev', 'staging']],
    ['environments after --env, by prefix', ['apply', PROJECT, '--env', 'st'], ['staging']],
    ['addresses after --target', ['plan', '-C', PROJECT, '--target', ''], ['agent/canary', 'agent/support', 'provider/openai']],
    ['addresses of the environment named', ['plan', PROJECT, '-e', 'dev', '--target', 'a'], ['agent/support']],
    ['more addresses after one (variadic)', ['plan', '-C', PROJECT, '--target', 'agent/support', 'prov'], ['provider/openai']],
    ['an option after a variadic value', ['plan', '-C', PROJECT, '--target', 'agent/support', '--js'], ['--json']],
    ['nothing for a value without choices (the shell completes files)', ['plan', '--out', ''], []],
    ['nothing outside a project', ['plan', '-C', 'no/such/dir', '-e', ''], []],
  ])('%s', async (_, words, expected) => {
    expect(await completionCandidates(program(), words)).toEqual(expected);
  });

  it('offers every visible command and never the hidden one', async () => {
    const all = await completionCandidates(program(), ['']);
    expect(all).toEqual(expect.arrayContaining(Object.keys(COMMANDS)));
    expect(all).not.toContain('__complete');
  });
});
