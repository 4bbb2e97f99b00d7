import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions, type OpsOptions } from '../../ops-options.js';

export function register(program: Command): void {
  addOpsOptions(program.command('sandboxes').description('the sandboxes of the environment: state, provider, owner session, idle since, snapshots')).action(
    async (options: OpsOptions, command: Command) => {
      const { runSandboxes } = await import('./run.js');
      await runSandboxes(options, command.optsWithGlobals<GlobalOptions>());
    },
  );
}
