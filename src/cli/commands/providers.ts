import type { Command } from 'commander';
import type { GlobalOptions } from '../global-options.js';
import { addOpsOptions, type OpsOptions } from '../ops-options.js';

export function register(program: Command): void {
  const providers = program.command('providers').description('model providers');
  addOpsOptions(
    providers
      .command('models')
      .description('the models a provider offers, with context window and output limit (providers.models)')
      .argument('<name>', 'the provider name'),
  ).action(async (name: string, options: OpsOptions, command: Command) => {
    const [{ withConnection }, { printJson }, { renderModels }] = await Promise.all([import('../../connect/project.js'), import('../output.js'), import('../../render/ops/providers.js')]);
    await withConnection(options, command.optsWithGlobals<GlobalOptions>(), async ({ client }) => {
      const models = await client.call('providers.models', { name });
      if (options.json) printJson(models);
      else process.stdout.write(`${renderModels(name, models)}\n`);
    });
  });
}
