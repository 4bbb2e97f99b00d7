import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions, type OpsOptions } from '../../ops-options.js';

export function register(program: Command): void {
  addOpsOptions(program.command('org').description('the organization the credential belongs to (organizations.get)')).action(
    async (options: OpsOptions, command: Command) => {
      const { runOrg } = await import('./run.js');
      await runOrg(options, command.optsWithGlobals<GlobalOptions>());
    },
  );
}
