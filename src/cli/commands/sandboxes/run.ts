import { withConnection } from '../../../connect/project.js';
import { renderSandboxes } from '../../../render/ops/sandboxes.js';
import type { GlobalOptions } from '../../global-options.js';
import type { OpsOptions } from '../../ops-options.js';
import { printJson } from '../../terminal.js';

export async function runSandboxes(options: OpsOptions, globals: GlobalOptions): Promise<void> {
  await withConnection(options, globals, async ({ client }) => {
    const sandboxes = await client.call('sandboxes.list', {});
    if (options.json) printJson(sandboxes);
    else process.stdout.write(`${renderSandboxes(sandboxes, new Date())}\n`);
  });
}
