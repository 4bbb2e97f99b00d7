import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions, type OpsOptions } from '../../ops-options.js';

export function register(program: Command): void {
  const env = program.command('env').description("the organization's environments");
  addOpsOptions(
    env.command('get').description('one environment by slug: kind, group, spend caps, retention (environments.get)').argument('<slug>', 'the environment slug'),
  ).action(async (slug: string, options: OpsOptions, command: Command) => {
    const { runEnvGet } = await import('./run.js');
    await runEnvGet(slug, options, command.optsWithGlobals<GlobalOptions>());
  });
}
