import { dirOption, projectDirFrom } from '../../project-dir.js';
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import type { CommandOutcome } from '../outcome.js';

interface ValidateOptions {
  /** -C/--dir: the project directory, when not given as the argument. */
  dir?: string;
  env?: string;
  json?: boolean;
  remote?: boolean;
}

export function register(program: Command, outcome: CommandOutcome = { exitCode: 0 }): void {
  program
    .command('validate')
    .description(
      'check the configuration: schemas, references, cycles, ${env:}/${file:}, literal secrets and policy errors (offline); --remote adds models and tools',
    )
    .argument('[dir]', 'project directory (holds agentform.yaml)')
    .addOption(dirOption())
    .option('-e, --env <name>', 'check only this environment (default: every environment)')
    .option('--json', 'print the problems as JSON')
    .option('--remote', "also check against the environment's server: models offered by providers, tools offered by connections")
    .action(async (dirArgument: string | undefined, options: ValidateOptions, command: Command) => {
      const dir = projectDirFrom(dirArgument, options.dir);
      const { runValidate } = await import('./run.js');
      outcome.exitCode = await runValidate(dir, options, command.optsWithGlobals<GlobalOptions>());
    });
}
