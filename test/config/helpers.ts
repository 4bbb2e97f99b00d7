// Writes a throw-away project: { 'agentform.yaml': '...', 'agents.yaml': '...' } → directory.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const ROOT_ONE_ENV = 'version: 1\nenvironments:\n  dev:\n    url: local\n';

export function writeProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentform-config-'));
  for (const [file, text] of Object.entries({ 'agentform.yaml': ROOT_ONE_ENV, ...files })) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}
