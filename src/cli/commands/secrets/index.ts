import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { addOpsOptions, type OpsOptions } from '../../ops-options.js';

export function register(program: Command): void {
  const secrets = program.command('secrets').description('secrets (values are write-only and never shown)');
  addOpsOptions(secrets.command('delete').description('delete a secret by name or id').argument('<name-or-id>', 'the secret name, or its id (sec_…)')).action(
    async (given: string, options: OpsOptions, command: Command) => {
      const { runDeleteSecret } = await import('./run.js');
      await runDeleteSecret(given, options, command.optsWithGlobals<GlobalOptions>());
    },
  );
}
