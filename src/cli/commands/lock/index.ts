// `agentform lock [dir] -e ENV [--update] [--json]`: record the tool surface of every connection of
// an environment in agentform.lock.yaml. The run module is imported only when the command runs.
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { dirOption, projectDirFrom } from '../../project-dir.js';
import type { CommandOutcome } from '../outcome.js';
import type { LockCommandOptions } from './options.js';

export function register(program: Command, outcome: CommandOutcome = { exitCode: 0 }): void {
  program
    .command('lock')
    .description("record each connection's tools (names, annotations, digests) in agentform.lock.yaml (needs the control scope)")
    .argument('[dir]', 'project directory (holds agentform.yaml)')
    .addOption(dirOption())
    .option('-e, --env <name>', 'environment whose connections to lock')
    .option('--update', 'accept surfaces that differ from the lock (without it: print the difference and exit 1)')
    .option('--json', 'print what was locked as JSON')
    .action(async (dirArgument: string | undefined, options: LockCommandOptions, command: Command) => {
      const dir = projectDirFrom(dirArgument, options.dir);
      const { runLock } = await import('./run.js');
      outcome.exitCode = await runLock(dir, options, command.optsWithGlobals<GlobalOptions>());
    });
}
