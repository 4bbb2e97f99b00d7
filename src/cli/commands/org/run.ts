import { withConnection } from '../../../connect/project.js';
import { renderOrganization } from '../../../render/ops/account.js';
import type { GlobalOptions } from '../../global-options.js';
import type { OpsOptions } from '../../ops-options.js';
import { printJson } from '../../terminal.js';

export async function runOrg(options: OpsOptions, globals: GlobalOptions): Promise<void> {
  await withConnection(options, globals, async ({ client }) => {
    const organization = await client.call('organizations.get', undefined);
    if (options.json) printJson(organization);
    else process.stdout.write(`${renderOrganization(organization)}\n`);
  });
}
