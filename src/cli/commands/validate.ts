import type { Command } from 'commander';
import type { GlobalOptions } from '../global-options.js';

interface ValidateOptions {
  env?: string;
  json?: boolean;
  remote?: boolean;
}

export function register(program: Command): void {
  program
    .command('validate')
    .description('check the configuration: schemas, references, cycles, ${env:}/${file:} and literal secrets (offline); --remote adds models and tools')
    .argument('[dir]', 'project directory (holds agentform.yaml)', '.')
    .option('-e, --env <name>', 'check only this environment (default: every environment)')
    .option('--json', 'print the problems as JSON')
    .option('--remote', "also check against the environment's server: models offered by providers, tools offered by connections")
    .action(async (dir: string, options: ValidateOptions, command: Command) => {
      const { runValidate } = await import('./validate-run.js');
      await runValidate(dir, options, command.optsWithGlobals<GlobalOptions>());
    });
}
