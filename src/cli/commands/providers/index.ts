import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions, type OpsOptions } from '../../ops-options.js';

export function register(program: Command): void {
  const providers = program.command('providers').description('model providers');
  addOpsOptions(
    providers
      .command('models')
      .description('the models a provider offers, with context window and output limit (providers.models)')
      .argument('<name>', 'the provider name'),
  ).action(async (name: string, options: OpsOptions, command: Command) => {
    const { runModels } = await import('./run.js');
    await runModels(name, options, command.optsWithGlobals<GlobalOptions>());
  });
}
