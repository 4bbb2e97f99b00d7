// examples/gitops as the end-to-end tests run it: a copy whose three environments are all on the
// embedded local control plane, production promoting support from staging's first version.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyExample } from './cli.js';

/** The values the example's ${env:} references read (sentinels: a test can look for them in output). */
export const GITOPS_SECRETS = {
  OPENAI_API_KEY: 'sk-SENTINEL-openai',
  ANTHROPIC_API_KEY: 'sk-SENTINEL-anthropic',
  CRM_SUPPORT_TOKEN: 'SENTINEL-crm',
  NPM_TOKEN: 'SENTINEL-npm',
};

/** Replaces the first `from` in a file; throws when the file does not have it (the example changed). */
export async function editFile(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} does not contain ${from}`);
  await writeFile(file, text.replace(from, to));
}

/** `production: false` drops production's `kind: production` (its rules are then warnings). */
export async function gitopsOnLocalPlanes(options: { production?: boolean } = {}): Promise<string> {
  const dir = await copyExample('gitops');
  const root = join(dir, 'agentform.yaml');
  await editFile(root, 'url: https://control.staging.example.com', 'url: local');
  await editFile(root, 'url: https://control.example.com', 'url: local');
  if (options.production === false) await editFile(root, '      kind: production\n', '');
  await editFile(join(dir, 'agents', 'support.yaml'), 'promote: {from: staging, version: 7}', 'promote: {from: staging, version: 1}');
  return dir;
}
