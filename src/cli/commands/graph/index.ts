import { dirOption, projectDirFrom } from '../../project-dir.js';
import { Option, type Command } from 'commander';
import type { GraphCommandOptions } from './options.js';

export function register(program: Command): void {
  program
    .command('graph')
    .description('print the dependency graph of the configuration (offline) as Mermaid or DOT')
    .argument('[dir]', 'project directory (holds agentform.yaml)')
    .addOption(dirOption())
    .option('-e, --env <name>', 'environment whose resources to draw')
    .addOption(new Option('--format <format>', 'output format').choices(['mermaid', 'dot']).default('mermaid'))
    .option('--json', 'print the nodes and their dependencies as JSON')
    .action(async (dirArgument: string | undefined, options: GraphCommandOptions) => {
      const { runGraph } = await import('./run.js');
      await runGraph(projectDirFrom(dirArgument, options.dir), options);
    });
}
