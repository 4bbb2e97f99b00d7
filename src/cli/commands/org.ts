import type { Command } from 'commander';
import type { GlobalOptions } from '../global-options.js';
import { addOpsOptions, type OpsOptions } from '../ops-options.js';

export function register(program: Command): void {
  addOpsOptions(program.command('org').description('the organization the credential belongs to (organizations.get)')).action(
    async (options: OpsOptions, command: Command) => {
      const [{ withConnection }, { printJson }, { renderOrganization }] = await Promise.all([import('../../connect/project.js'), import('../output.js'), import('../../render/ops/account.js')]);
      await withConnection(options, command.optsWithGlobals<GlobalOptions>(), async ({ client }) => {
        const organization = await client.call('organizations.get', undefined);
        if (options.json) printJson(organization);
        else process.stdout.write(`${renderOrganization(organization)}\n`);
      });
    },
  );
}
