import { dirOption } from '../../project-dir.js';
import { breakGlassOption } from '../../break-glass.js';
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import type { RollbackCommandOptions } from './options.js';

export function register(program: Command): void {
  program
    .command('rollback')
    .description("upsert an earlier version's definition as a new version (the YAML in Git then disagrees)")
    .argument('<agent>', 'agent slug')
    .requiredOption('--to <n>', 'the version whose definition to restore')
    .option('-e, --env <name>', 'environment')
    .option('--auto-approve', 'roll back without asking (required without a terminal)')
    .addOption(breakGlassOption())
    .addOption(dirOption())
    .action(async (agent: string, options: RollbackCommandOptions, command: Command) => {
      const { runRollback } = await import('./run.js');
      await runRollback(agent, options, command.optsWithGlobals<GlobalOptions>());
    });
}
