import { dirOption } from '../../project-dir.js';
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import type { CommandOutcome } from '../outcome.js';
import type { DiffEnvsCommandOptions } from './options.js';

export function register(program: Command, outcome: CommandOutcome = { exitCode: 0 }): void {
  program
    .command('diff-envs')
    .description("show how two environments' live agents differ, and where each version came from (never writes)")
    .argument('<a>', 'environment whose definitions are compared (the "desired" side)')
    .argument('<b>', 'environment they are compared with (the "actual" side)')
    .addOption(dirOption())
    .option('--json', 'print {plan, provenance} as JSON')
    .option('--detailed-exitcode', 'exit 0 when the agents are the same, 2 when they differ, 1 on error')
    .action(async (a: string, b: string, options: DiffEnvsCommandOptions, command: Command) => {
      const { runDiffEnvs } = await import('./run.js');
      outcome.exitCode = await runDiffEnvs(a, b, options, command.optsWithGlobals<GlobalOptions>());
    });
}
