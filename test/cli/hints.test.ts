// Hints name where a value really came from: the variable that set the URL, the unset variable a
// token is read from, the source of a refused key.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

async function projectWith(root: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentform-hints-'));
  await writeFile(join(dir, 'agentform.yaml'), root);
  return dir;
}

const ROOT = [
  'version: 1',
  'environments:',
  '  production:',
  '    url: http://127.0.0.1:9',
  '    token: ${env:PROD_TOKEN}',
  'defaultEnvironment: production',
  '',
].join('\n');

describe('hints say where a value came from', () => {
  it('an unreachable URL set by AGENTFORM_URL_PRODUCTION names that variable', async () => {
    const dir = await projectWith(ROOT);
    const result = await runCli(['plan', dir], {
      env: { AGENTFORM_URL_PRODUCTION: 'http://127.0.0.1:9', PROD_TOKEN: 'svc_production_abcdef', AGENTFORM_MAX_RETRIES: '0' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Check AGENTFORM_URL_PRODUCTION.');
    expect(result.stderr).not.toContain('AGENTFORM_URL.');
  });

  it('an unreachable URL from agentform.yaml names the file setting', async () => {
    const dir = await projectWith(ROOT);
    const result = await runCli(['plan', dir], { env: { PROD_TOKEN: 'svc_production_abcdef', AGENTFORM_MAX_RETRIES: '0' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Check environments.production.url in agentform.yaml.');
  });

  it.each([['plan'], ['sandboxes']])('%s: a missing token names the unset variable agentform.yaml reads', async (command) => {
    const dir = await projectWith(ROOT);
    const result = await runCli([command, '-C', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no credential for environment production: PROD_TOKEN is not set');
    expect(result.stderr).toContain('AGENTFORM_TOKEN_PRODUCTION');
  });

  it('a key for another environment names where it came from', async () => {
    const dir = await projectWith(ROOT);
    const result = await runCli(['plan', dir], { env: { AGENTFORM_TOKEN_PRODUCTION: 'svc_staging_abcdef' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the key from AGENTFORM_TOKEN_PRODUCTION is for environment staging, not production');
  });
});
