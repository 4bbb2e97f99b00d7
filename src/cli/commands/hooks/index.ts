import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions } from '../../ops-options.js';
import type { RedeliverOptions } from './options.js';

export function register(program: Command): void {
  const hooks = program.command('hooks').description('hook deliveries: put failed or dead deliveries back in the queue');
  addOpsOptions(
    hooks
      .command('redeliver')
      .description('re-queue one hook delivery by id, or all of them with --all')
      .argument('[id]', 'the hook delivery id')
      .option('--all', 'redeliver every delivery the server will requeue (hooks.redeliverAll, repeated while more remain)')
      .option('--max-calls <n>', 'with --all: stop after this many hooks.redeliverAll calls', '100'),
  ).action(async (id: string | undefined, options: RedeliverOptions, command: Command) => {
    const { runRedeliver } = await import('./run.js');
    await runRedeliver(id, options, command.optsWithGlobals<GlobalOptions>());
  });
}
