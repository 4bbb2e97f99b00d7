import type { Command } from 'commander';
import type { GlobalOptions } from '../global-options.js';
import { addOpsOptions, type OpsOptions } from '../ops-options.js';

export function register(program: Command): void {
  const secrets = program.command('secrets').description('secrets (values are write-only and never shown)');
  addOpsOptions(secrets.command('delete').description('delete a secret by name or id').argument('<name-or-id>', 'the secret name, or its id (sec_…)')).action(
    async (given: string, options: OpsOptions, command: Command) => {
      const [{ withConnection }, { printJson }, { resolveNameOrId }] = await Promise.all([import('../../connect/project.js'), import('../output.js'), import('../resolve-by-name.js')]);
      await withConnection(options, command.optsWithGlobals<GlobalOptions>(), async ({ client }) => {
        const { id, name } = await resolveNameOrId('secret', given, 'sec', () => client.call('secrets.list', {}));
        await client.call('secrets.delete', { id });
        if (options.json) printJson({ deleted: id, ...(name ? { name } : {}) });
        else process.stdout.write(name ? `Deleted secret ${name} (${id}).\n` : `Deleted secret ${id}.\n`);
      });
    },
  );
}
