import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of a project file, or write them all for editors (--write)')
    .argument('[kind]', 'one of agentform, agent, provider, connection, secret, apikey, lock, test', 'agentform')
    .option('--list', 'list the schemas and their file names')
    .option('--write <dir>', 'write every schema into DIR (e.g. schemas), for modelines and .vscode/settings.json')
    .action(async (kind: string, options: { list?: boolean; write?: string }) => {
      const { runSchema } = await import('./run.js');
      await runSchema(kind, options);
    });
}
