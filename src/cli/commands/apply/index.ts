import { dirOption, projectDirFrom } from '../../project-dir.js';
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import type { ApplyCommandOptions } from './options.js';
import { breakGlassOption } from '../../break-glass.js';

export function register(program: Command): void {
  program
    .command('apply')
    .description('plan, confirm, and converge the environment to the configuration')
    .argument('[dir-or-plan]', 'project directory, or a plan saved with `plan --out`')
    .addOption(dirOption())
    .option('-e, --env <name>', 'environment to apply')
    .option('--auto-approve', 'apply without asking (required without a terminal)')
    .option('--parallelism <n>', 'how many changes run at once', '8')
    .option('--wait', "wait for each upserted agent's image to finish baking; fail if it fails")
    .option('--json', 'print one JSON event per line (for CI systems)')
    .option('--prune', 'delete remote resources that are not in the configuration')
    .option('--allow-mass-delete', 'confirm an apply that deletes a whole kind or a large share of the environment')
    .option('--target <kind/name...>', 'limit the apply to these resources and what they depend on')
    .option(
      '--base <revision|dir>',
      'compare with the configuration at this git revision (origin/main) or directory: a live resource it does not declare plans as adopt',
    )
    .option('--exclude <kind/name...>', 'leave these resources alone (globs: agent/team-a-*): never created, changed or deleted')
    .option(
      '--max-request-bytes <n>',
      'refuse before any write when a change would send a larger request (default: maxRequestBytes of the environment, else 1048576)',
    )
    .addOption(breakGlassOption())
    .option('--update-lock', 'accept tool surfaces that differ from agentform.lock.yaml and rewrite the lock')
    .action(async (dirOrPlanArgument: string | undefined, options: ApplyCommandOptions, command: Command) => {
      const dirOrPlan = projectDirFrom(dirOrPlanArgument, options.dir);
      const { runApply } = await import('./run.js');
      await runApply(dirOrPlan, options, command.optsWithGlobals<GlobalOptions>());
    });
}
