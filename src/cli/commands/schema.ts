import type { Command } from 'commander';
import { UserError } from '../../errors.js';

const KINDS = ['agentform', 'agent', 'provider', 'connection', 'secret', 'apikey', 'lock'];

export function register(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of a project file, or write them all for editors (--write)')
    .argument('[kind]', `one of ${KINDS.join(', ')}`, 'agentform')
    .option('--list', 'list the schemas and their file names')
    .option('--write <dir>', 'write every schema into DIR (e.g. schemas), for modelines and .vscode/settings.json')
    .action(async (kind: string, options: { list?: boolean; write?: string }) => {
      const { SCHEMA_ALIASES, SCHEMA_FILES, schemaText } = await import('../../config/schemas.js');
      if (options.write !== undefined) {
        const { writeSchemas } = await import('./schema-write.js');
        await writeSchemas(options.write);
        return;
      }
      if (options.list) {
        for (const name of KINDS) process.stdout.write(`${name.padEnd(11)} ${SCHEMA_FILES[SCHEMA_ALIASES[name]!]}\n`);
        return;
      }
      const name = SCHEMA_ALIASES[kind.toLowerCase()];
      if (!name) throw new UserError(`unknown schema "${kind}"`, `choose one of ${KINDS.join(', ')}`);
      process.stdout.write(schemaText(name));
    });
}
