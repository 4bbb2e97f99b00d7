// What a project needs for completion and checks in an editor, without any network: the JSON
// Schemas copied into the project, a `# yaml-language-server: $schema=<relative path>` modeline at
// the top of each file, and a `yaml.schemas` mapping for VS Code. Relative paths, because nobody
// serves a URL for them and an editor must not depend on one. Used by `init`, `schema --write` and
// `export`; pure apart from reading the package's schema texts.
import { posix } from 'node:path';
import { PROJECT_SCHEMAS_DIR } from './modeline.js';
import { SCHEMA_FILES, schemaText, type SchemaName } from './schemas.js';

export { PROJECT_SCHEMAS_DIR, schemaModeline } from './modeline.js';

/** A file to write, relative to a directory, `/`-separated. */
export interface ProjectFile {
  path: string;
  content: string;
}

/**
 * The schema files of the package, to be written under `dir` (relative, `/`-separated). Not the
 * lock's: agentform.lock.yaml is written by agentform, never edited, so an editor needs no schema for it.
 */
export function schemaFiles(dir: string = PROJECT_SCHEMAS_DIR): ProjectFile[] {
  return (Object.keys(SCHEMA_FILES) as SchemaName[])
    .filter((name) => name !== 'lock')
    .map((name) => ({
      path: posix.join(dir, SCHEMA_FILES[name]),
      content: schemaText(name),
    }));
}

/**
 * `.vscode/settings.json` for the Red Hat YAML extension: the root file and capability test files by name, and no schema
 * catalogue download (the project brings its own schemas). Resource files carry modelines, since
 * one file may hold any kind.
 */
export function vscodeSettings(schemasDir: string = PROJECT_SCHEMAS_DIR): ProjectFile {
  const settings = {
    'yaml.schemas': {
      [`./${posix.join(schemasDir, SCHEMA_FILES.root)}`]: ['agentform.yaml'],
      [`./${posix.join(schemasDir, SCHEMA_FILES.test)}`]: ['**/*.test.yaml', '**/*.test.yml'],
    },
    'yaml.schemaStore.enable': false,
  };
  return { path: '.vscode/settings.json', content: `${JSON.stringify(settings, null, 2)}\n` };
}
