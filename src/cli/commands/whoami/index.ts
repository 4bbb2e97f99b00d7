// `agentform whoami`: which organization, environment and key the current credential acts as.
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions, type OpsOptions } from '../../ops-options.js';

export function register(program: Command): void {
  const command = program
    .command('whoami')
    .description('show the organization, environment, key and scopes of the current credential')
    .option('--json', 'print the identity as JSON');
  // -e/--dir like the operations commands: inside a project, whoami speaks for its environment.
  addOpsOptions(command, { json: false }).action(async (options: OpsOptions, actionCommand: Command) => {
    const { runWhoami } = await import('./run.js');
    await runWhoami(options, actionCommand.optsWithGlobals<GlobalOptions>());
  });
}
