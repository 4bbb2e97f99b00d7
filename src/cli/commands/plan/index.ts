import { dirOption, projectDirFrom } from '../../project-dir.js';
import { Option, type Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import type { CommandOutcome } from '../outcome.js';
import type { PlanCommandOptions } from './options.js';

export function register(program: Command, outcome: CommandOutcome = { exitCode: 0 }): void {
  program
    .command('plan')
    .description('read the live state and show what apply would change (never writes)')
    .argument('[dir]', 'project directory (holds agentform.yaml)')
    .addOption(dirOption())
    .option('-e, --env <name>', 'environment to plan')
    .option('--all-envs', 'plan every environment in turn, then print one summary')
    .option('--envs <names>', 'plan only these environments, comma-separated (staging,production), in this order: --all-envs limited to them')
    .option('--json', 'print the plan as JSON (schemas/plan.schema.json)')
    .option('--changes-only', 'with --json: leave out the resources apply would not touch (no-op)')
    .option('--markdown', 'print the pull-request comment: a marker to update it in place, the plan, cut to fit GitHub')
    .option('--markdown-link <url>', 'with --markdown: where the full plan is, named when the comment is cut (env AGENTFORM_MARKDOWN_LINK)')
    .option('--markdown-full <file>', 'with --markdown: also write the whole comment, uncut, to this file (a CI artifact the cut comment names)')
    .option('--out <file>', 'save the plan for `agentform apply <file>` (holds no secret values; with --all-envs: a name with {env})')
    .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error or a policy error apply would refuse')
    .option('--prune', 'plan deletes of remote resources that are not in the configuration')
    .option('--allow-mass-delete', 'confirm a plan that deletes a whole kind or a large share of the environment')
    .addOption(new Option('--target <kind/name...>', 'limit the plan to these resources and what they depend on'))
    .addOption(new Option('--exclude <kind/name...>', 'leave these resources alone (globs: agent/team-a-*): never created, changed or deleted'))
    .option(
      '--base <revision|dir>',
      'compare with the configuration at this git revision (origin/main) or directory: a live resource it does not declare plans as adopt',
    )
    .option('--check-tools', "compare each connection's live tools with agentform.lock.yaml (needs the control scope; a read-only key: not checked)")
    .action(async (dirArgument: string | undefined, options: PlanCommandOptions, command: Command) => {
      const dir = projectDirFrom(dirArgument, options.dir);
      const { runPlan } = await import('./run.js');
      outcome.exitCode = await runPlan(dir, options, command.optsWithGlobals<GlobalOptions>());
    });
}
