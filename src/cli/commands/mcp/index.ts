import type { Command } from 'commander';
import type { GlobalOptions } from '../../global-options.js';
import { dirOption, projectDirFrom } from '../../project-dir.js';
import type { McpCommandOptions } from './options.js';

export function register(program: Command): void {
  program
    .command('mcp')
    .description('serve the project to coding agents over MCP (stdio): validate, plan, explain, graph, schema')
    .argument('[dir]', 'project directory (holds agentform.yaml)')
    .addOption(dirOption())
    .option('--allow-apply', 'also offer an apply tool: applies a plan made in the same session, never to a production environment')
    .action(async (dirArgument: string | undefined, options: McpCommandOptions, command: Command) => {
      const { runMcp } = await import('./run.js');
      await runMcp(projectDirFrom(dirArgument, options.dir), options, command.optsWithGlobals<GlobalOptions>());
    });
}
