import type { Command } from 'commander';
import { dirOption, projectDirFrom } from '../../project-dir.js';
import type { GlobalOptions } from '../../global-options.js';
import type { CommandOutcome } from '../outcome.js';
import type { DriftCommandOptions } from './options.js';

export function register(program: Command, outcome: CommandOutcome = { exitCode: 0 }): void {
  program
    .command('drift')
    .description('show what differs between the live environment and the configuration (never writes): exit 0 none, 2 drift, 1 error')
    .argument('[dir]', 'project directory (holds agentform.yaml)')
    .addOption(dirOption())
    .option('-e, --env <name>', 'environment to check')
    .option('--all-envs', 'check every environment in turn')
    .option('--json', 'print the drift as JSON (docs/drift.md)')
    .option('--markdown', 'print a Markdown report (CI job summaries, issues)')
    .option('--check-tools', "compare each connection's live tools with agentform.lock.yaml too (needs the control scope; a read-only key: not checked)")
    .action(async (dirArgument: string | undefined, options: DriftCommandOptions, command: Command) => {
      const dir = projectDirFrom(dirArgument, options.dir);
      const { runDrift } = await import('./run.js');
      outcome.exitCode = await runDrift(dir, options, command.optsWithGlobals<GlobalOptions>());
    });
}
