import type { Command } from 'commander';
import type { GlobalOptions } from '../global-options.js';
import { addOpsOptions, type OpsOptions } from '../ops-client.js';

export function register(program: Command): void {
  const secrets = program.command('secrets').description('secrets (values are write-only and never shown)');
  addOpsOptions(secrets.command('delete').description('delete a secret by id').argument('<id>', 'the secret id')).action(
    async (id: string, options: OpsOptions, command: Command) => {
      const [{ withOpsClient }, { printJson }] = await Promise.all([import('../ops-client.js'), import('../output.js')]);
      await withOpsClient(options, command.optsWithGlobals<GlobalOptions>(), async ({ client }) => {
        await client.call('secrets.delete', { id });
        if (options.json) printJson({ deleted: id });
        else process.stdout.write(`Deleted secret ${id}.\n`);
      });
    },
  );
}
