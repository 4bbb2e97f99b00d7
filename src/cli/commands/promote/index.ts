import { dirOption } from '../../project-dir.js';
import { breakGlassOption } from '../../break-glass.js';
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import type { PromoteCommandOptions } from './options.js';

export function register(program: Command): void {
  program
    .command('promote')
    .description("copy an agent version from one environment to another, keeping the target's overlay fields")
    .argument('<agent>', 'agent slug')
    .requiredOption('--from <env>', 'source environment')
    .requiredOption('--to <env>', 'target environment')
    .option('--source-version <n>', 'source version (default: the latest; --version is the program version)')
    .option('--with-subagents', 'promote the subagents it names first, in dependency order')
    .option('--auto-approve', 'promote without asking (required without a terminal)')
    .addOption(breakGlassOption())
    .addOption(dirOption())
    .action(async (agent: string, options: PromoteCommandOptions, command: Command) => {
      const { runPromote } = await import('./run.js');
      await runPromote(agent, options, command.optsWithGlobals<GlobalOptions>());
    });
}
