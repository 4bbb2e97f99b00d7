import { withConnection } from '../../../connect/project.js';
import { renderModels } from '../../../render/ops/providers.js';
import type { GlobalOptions } from '../../global-options.js';
import type { OpsOptions } from '../../ops-options.js';
import { printJson } from '../../terminal.js';

export async function runModels(name: string, options: OpsOptions, globals: GlobalOptions): Promise<void> {
  await withConnection(options, globals, async ({ client }) => {
    const models = await client.call('providers.models', { name });
    if (options.json) printJson(models);
    else process.stdout.write(`${renderModels(name, models)}\n`);
  });
}
