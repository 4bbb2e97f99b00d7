// `agentform schema --write DIR`: the schemas as files in the project, for editors. They are generated
// from the installed agentform, so they are replaced on every run (an upgrade brings new fields).
import { mkdir } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { schemaFiles } from '../../config/editor-support.js';
import { writeFileAtomic } from '../../util/atomic-write.js';

export async function writeSchemas(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const files = schemaFiles('.');
  for (const file of files) await writeFileAtomic(join(dir, file.path), file.content);
  const shown = relative(process.cwd(), dir) || '.';
  process.stdout.write(`Wrote ${files.length} schemas to ${shown}: ${files.map((file) => basename(file.path)).join(', ')}.\n`);
  process.stdout.write('Start each project file with its schema, as a path relative to that file, e.g.\n  # yaml-language-server: $schema=../schemas/agent.schema.json\n');
}
