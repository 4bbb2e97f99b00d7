// The examples are what `init` and `export` write: schemas inside the project, a modeline on every
// file pointing at the right one relatively, and VS Code settings. Here they must match the package.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_SCHEMAS_DIR, schemaFiles, vscodeSettings } from '../../src/config/editor-support.js';
import { REPO } from '../helpers/cli.js';

const EXAMPLES = ['quickstart', 'gitops'];
const SCHEMA_OF_KIND: Record<string, string> = {
  Agent: 'agent.schema.json',
  Provider: 'provider.schema.json',
  Connection: 'connection.schema.json',
  Secret: 'secret.schema.json',
  ApiKey: 'apikey.schema.json',
};

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.yaml') && !file.startsWith('.agentform'))
    .map((file) => join(dir, file));
}

describe.each(EXAMPLES)('examples/%s', (example) => {
  const root = join(REPO, 'examples', example);

  it('carries the package schemas unchanged (regenerate: agentform schema --write examples/<name>/schemas)', () => {
    for (const file of schemaFiles()) {
      expect(readFileSync(join(root, file.path), 'utf8'), file.path).toBe(file.content);
    }
  });

  it('starts every file with a modeline to the schema of its kind, relative to the file', () => {
    for (const file of yamlFiles(root)) {
      const text = readFileSync(file, 'utf8');
      const match = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text);
      expect(match, relative(root, file)).not.toBeNull();
      const target = join(dirname(file), match![1]!);
      expect(existsSync(target), `${relative(root, file)} → ${match![1]}`).toBe(true);
      expect(relative(root, dirname(target))).toBe(PROJECT_SCHEMAS_DIR);
      const kind = /^kind: (\w+)$/m.exec(text)?.[1];
      const expected = file.endsWith('agentform.yaml') ? 'agentform.schema.json' : SCHEMA_OF_KIND[kind ?? ''];
      expect(target.endsWith(`/${expected}`), relative(root, file)).toBe(true);
    }
  });

  it('maps agentform.yaml to its schema for VS Code', () => {
    const settings = vscodeSettings();
    expect(readFileSync(join(root, settings.path), 'utf8')).toBe(settings.content);
  });
});
