import { withConnection } from '../../../connect/project.js';
import { renderEnvironment } from '../../../render/ops/account.js';
import type { GlobalOptions } from '../../global-options.js';
import type { OpsOptions } from '../../ops-options.js';
import { printJson } from '../../terminal.js';

export async function runEnvGet(slug: string, options: OpsOptions, globals: GlobalOptions): Promise<void> {
  await withConnection(options, globals, async ({ client }) => {
    const environment = await client.call('environments.get', { slug });
    if (options.json) printJson(environment);
    else process.stdout.write(`${renderEnvironment(environment)}\n`);
  });
}
