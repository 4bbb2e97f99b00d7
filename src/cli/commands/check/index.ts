// agentform check [dir] -e ENV [--json]: the policy rules on the configuration and the tool-surface
// lock, offline (no server, no secrets); exit 1 on any error-severity finding.
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { dirOption, projectDirFrom } from '../../project-dir.js';
import type { CommandOutcome } from '../outcome.js';
import type { CheckCommandOptions } from './options.js';

export function register(program: Command, outcome: CommandOutcome = { exitCode: 0 }): void {
  program
    .command('check')
    .description('check the policy rules (docs/policy.md) on the configuration and agentform.lock.yaml, offline; exit 1 on an error')
    .argument('[dir]', 'project directory (holds agentform.yaml)')
    .addOption(dirOption())
    .option('-e, --env <name>', 'environment to check')
    .option('--json', 'print the findings as JSON')
    .action(async (dirArgument: string | undefined, options: CheckCommandOptions, command: Command) => {
      const dir = projectDirFrom(dirArgument, options.dir);
      const { runCheck } = await import('./run.js');
      outcome.exitCode = await runCheck(dir, options, command.optsWithGlobals<GlobalOptions>());
    });
}
