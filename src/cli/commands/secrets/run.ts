import { withConnection } from '../../../connect/project.js';
import { resolveNameOrId } from '../../../state/by-name.js';
import type { GlobalOptions } from '../../global-options.js';
import type { OpsOptions } from '../../ops-options.js';
import { printJson } from '../../terminal.js';

export async function runDeleteSecret(given: string, options: OpsOptions, globals: GlobalOptions): Promise<void> {
  await withConnection(options, globals, async ({ client }) => {
    const { id, name } = await resolveNameOrId('secret', given, 'sec', () => client.call('secrets.list', {}));
    await client.call('secrets.delete', { id });
    if (options.json) printJson({ deleted: id, ...(name ? { name } : {}) });
    else process.stdout.write(name ? `Deleted secret ${name} (${id}).\n` : `Deleted secret ${id}.\n`);
  });
}
