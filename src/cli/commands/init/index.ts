import { Option, type Command } from 'commander';
import { dirOption, projectDirFrom } from '../../project-dir.js';

export function register(program: Command): void {
  program
    .command('init')
    .description('create a new project: agentform.yaml, one agent and its prompt, schemas and editor settings')
    .argument('[dir]', 'directory for the project (created if missing; default: the current directory)')
    .addOption(dirOption())
    .addOption(
      new Option('--ci <system>', 'also write the CI recipe for GitHub Actions or GitLab (in an existing project: only the recipe)').choices([
        'github',
        'gitlab',
      ]),
    )
    .action(async (dir: string | undefined, options: { ci?: 'github' | 'gitlab'; dir?: string }) => {
      const { runInit } = await import('./run.js');
      await runInit(projectDirFrom(dir, options.dir), options);
    });
}
