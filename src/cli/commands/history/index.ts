import { dirOption } from '../../project-dir.js';
import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import type { HistoryCommandOptions } from './options.js';

export function register(program: Command): void {
  program
    .command('history')
    .description("list an agent's versions in one environment, with time, image and provenance")
    .argument('<agent>', 'agent slug')
    .option('-e, --env <name>', 'environment')
    .option('--json', 'print the versions as JSON')
    .addOption(dirOption())
    .action(async (agent: string, options: HistoryCommandOptions, command: Command) => {
      const { runHistory } = await import('./run.js');
      await runHistory(agent, options, command.optsWithGlobals<GlobalOptions>());
    });
}
