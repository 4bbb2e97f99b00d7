import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions, type OpsOptions } from '../../ops-options.js';
import type { CreateKeyOptions } from './options.js';

export function register(program: Command): void {
  const keys = program.command('keys').description('API keys: create one (the token is shown once) or revoke one');
  addOpsOptions(
    keys
      .command('create')
      .description('create an API key; its token goes to --token-file (mode 0600) or, with --show-token, to stdout')
      .argument('<name>', 'a name for the key')
      .requiredOption('--scopes <list>', 'comma-separated scopes: read, control')
      .option('--expires <when>', 'expiry: 30d (from now), a date or an RFC 3339 time')
      .option('--token-file <file>', 'write the token to this new file, mode 0600')
      .option('--show-token', 'print the token on stdout instead (it cannot be read again later)'),
  ).action(async (name: string, options: CreateKeyOptions, command: Command) => {
    const { runCreateKey } = await import('./run.js');
    await runCreateKey(name, options, command.optsWithGlobals<GlobalOptions>());
  });
  addOpsOptions(
    keys
      .command('revoke')
      .description('revoke an API key by name or id')
      .argument('<name-or-id>', 'the key name (of a key not yet revoked), or its id (key_…)'),
  ).action(async (given: string, options: OpsOptions, command: Command) => {
    const { runRevokeKey } = await import('./run.js');
    await runRevokeKey(given, options, command.optsWithGlobals<GlobalOptions>());
  });
}
