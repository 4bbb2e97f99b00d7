import { Option, type Command } from 'commander';

export function register(program: Command): void {
  program
    .command('init')
    .description('create a new project: agentform.yaml, one agent and its prompt, schemas and editor settings')
    .argument('[dir]', 'directory for the project (created if missing)', '.')
    .addOption(new Option('--ci <system>', 'also write the CI recipe for GitHub Actions or GitLab').choices(['github', 'gitlab']))
    .action(async (dir: string, options: { ci?: 'github' | 'gitlab' }) => {
      const { runInit } = await import('./init-run.js');
      await runInit(dir, options);
    });
}
