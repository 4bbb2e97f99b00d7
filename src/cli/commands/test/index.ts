// `agentform test [dir] [-e ENV | --all-envs] [--json] [--junit FILE]`: check the capability tests
// (*.test.yaml) offline, from the configuration and agentform.lock.yaml. The run module is imported
// only when the command runs.
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { dirOption, projectDirFrom } from '../../project-dir.js';
import type { CommandOutcome } from '../outcome.js';
import type { TestCommandOptions } from './options.js';

export function register(program: Command, outcome: CommandOutcome = { exitCode: 0 }): void {
  program
    .command('test')
    .description('check the capability tests (*.test.yaml) offline, from the configuration and the lock; exit 1 on any failure')
    .argument('[dir]', 'project directory (holds agentform.yaml)')
    .addOption(dirOption())
    .option('-e, --env <name>', 'environment to check the tests in')
    .option('--all-envs', 'check the tests in every environment of the project')
    .option('--json', 'print the results as JSON')
    .option('--junit <file>', 'also write the results as JUnit XML to FILE (one testsuite per environment)')
    .action(async (dirArgument: string | undefined, options: TestCommandOptions, command: Command) => {
      const dir = projectDirFrom(dirArgument, options.dir);
      const { runTest } = await import('./run.js');
      outcome.exitCode = await runTest(dir, options, command.optsWithGlobals<GlobalOptions>());
    });
}
