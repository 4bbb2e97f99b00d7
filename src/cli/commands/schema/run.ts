// `agentform schema [KIND]`: print a schema, list them, or (--write DIR) write them as files in the
// project, for editors. Written schemas are generated from the installed agentform, so they are
// replaced on every run (an upgrade brings new fields).
import { mkdir } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { schemaFiles } from '../../../config/editor-support.js';
import { SCHEMA_ALIASES, SCHEMA_FILES, schemaText } from '../../../config/schemas.js';
import { UserError } from '../../../errors.js';
import { writeFileAtomic } from '../../../util/atomic-write.js';

export const SCHEMA_KINDS = ['agentform', 'agent', 'provider', 'connection', 'secret', 'apikey', 'agenttemplate', 'lock', 'test'] as const;

export async function runSchema(kind: string, options: { list?: boolean; write?: string }): Promise<void> {
  if (options.write !== undefined) {
    await writeSchemas(options.write);
    return;
  }
  if (options.list) {
    for (const name of SCHEMA_KINDS) process.stdout.write(`${name.padEnd(11)} ${SCHEMA_FILES[SCHEMA_ALIASES[name]!]}\n`);
    return;
  }
  process.stdout.write(schemaTextOf(kind));
}

/** The JSON Schema of a kind (a name of SCHEMA_KINDS, any case), as text; also the MCP `schema` tool. */
export function schemaTextOf(kind: string): string {
  const name = SCHEMA_ALIASES[kind.toLowerCase()];
  if (!name) throw new UserError(`unknown schema "${kind}"`, `choose one of ${SCHEMA_KINDS.join(', ')}`);
  return schemaText(name);
}

export async function writeSchemas(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const files = schemaFiles('.');
  for (const file of files) await writeFileAtomic(join(dir, file.path), file.content);
  const shown = relative(process.cwd(), dir) || '.';
  process.stdout.write(`Wrote ${files.length} schemas to ${shown}: ${files.map((file) => basename(file.path)).join(', ')}.\n`);
  process.stdout.write(
    'Start each project file with its schema, as a path relative to that file, e.g.\n  # yaml-language-server: $schema=../schemas/agent.schema.json\n',
  );
}
