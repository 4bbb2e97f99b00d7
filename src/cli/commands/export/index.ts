import { dirOption } from '../../project-dir.js';
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import type { ExportCommandOptions } from './options.js';

export function register(program: Command): void {
  program
    .command('export')
    .description("write a complete project for an environment's live state (never writes to the server)")
    .option('-e, --env <name>', 'environment to export (in a project: one it declares; otherwise the environment slug)')
    .requiredOption('--out <dir>', 'directory to write the project into (must be empty unless --force)')
    .option('--force', 'write into a directory that is not empty, overwriting files of the same name')
    .addOption(dirOption())
    .action(async (options: ExportCommandOptions, command: Command) => {
      const { runExport } = await import('./run.js');
      await runExport(options, command.optsWithGlobals<GlobalOptions>());
    });
}
