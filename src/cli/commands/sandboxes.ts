import type { Command } from 'commander';
import type { GlobalOptions } from '../global-options.js';
import { addOpsOptions, type OpsOptions } from '../ops-options.js';

export function register(program: Command): void {
  addOpsOptions(
    program.command('sandboxes').description('the sandboxes of the environment: state, provider, owner session, idle since, snapshots'),
  ).action(async (options: OpsOptions, command: Command) => {
    const [{ withConnection }, { printJson }, { renderSandboxes }] = await Promise.all([import('../../connect/project.js'), import('../output.js'), import('../../render/ops/sandboxes.js')]);
    await withConnection(options, command.optsWithGlobals<GlobalOptions>(), async ({ client }) => {
      const sandboxes = await client.call('sandboxes.list', {});
      if (options.json) printJson(sandboxes);
      else process.stdout.write(`${renderSandboxes(sandboxes, new Date())}\n`);
    });
  });
}
