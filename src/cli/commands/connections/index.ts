import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions, type OpsOptions } from '../../ops-options.js';
import type { GrantsOptions } from './options.js';

export function register(program: Command): void {
  const connections = program.command('connections').description('tool-server connections: test one, list the credential grants');
  addOpsOptions(
    connections
      .command('test')
      .description("ask a connection's tool server for its tools (connections.test) and show them with their annotations")
      .argument('<name>', 'the connection name'),
  ).action(async (name: string, options: OpsOptions, command: Command) => {
    const { runTest } = await import('./run.js');
    await runTest(name, options, command.optsWithGlobals<GlobalOptions>());
  });
  addOpsOptions(
    connections
      .command('grants')
      .description('the per-identity credential grants (never their tokens)')
      .option('--connection <name>', 'only the grants of this connection'),
  ).action(async (options: GrantsOptions, command: Command) => {
    const { runGrants } = await import('./run.js');
    await runGrants(options, command.optsWithGlobals<GlobalOptions>());
  });
}
