// The `# yaml-language-server: $schema=…` line at the top of a project file. A path relative to the
// file, to schemas kept in the project: no URL that someone must serve, no network for the editor.
// Pure, so that export (which builds files as data) can use it too.
import { posix } from 'node:path';

/** Where `init`, `export` and the examples keep the schemas, relative to the project directory. */
export const PROJECT_SCHEMAS_DIR = 'schemas';

/**
 * The modeline for a YAML file at `filePath` (relative to the project, `/`-separated) pointing at
 * `schemaFile` (e.g. `agent.schema.json`) in the project's `schemasDir`.
 */
export function schemaModeline(schemaFile: string, filePath: string, schemasDir: string = PROJECT_SCHEMAS_DIR): string {
  let target = posix.relative(posix.dirname(filePath), posix.join(schemasDir, schemaFile));
  if (!target.startsWith('.')) target = `./${target}`;
  return `# yaml-language-server: $schema=${target}`;
}
