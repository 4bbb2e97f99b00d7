// End to end: two environments of the gitops example on one control plane (HTTP, 127.0.0.1),
// production promoted from staging; diff-envs shows the known difference and the provenance.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { copyExample, runCli } from '../helpers/cli.js';

async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  await writeFile(file, text.replace(from, to));
}

describe('diff-envs staging production', () => {
  let server: LocalControlPlane;
  let project: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startLocalControlPlane({ dataDir: await mkdtemp(join(tmpdir(), 'agentform-diff-envs-')), environments: ['staging', 'production'] });
    project = await copyExample('gitops');
    // Tests only talk to 127.0.0.1.
    await edit(join(project, 'platform', 'connections.yaml'), 'https://crm-tools.example.com/mcp', 'http://127.0.0.1:9/mcp');
    await edit(join(project, 'platform', 'connections.yaml'), 'https://hooks.example.com/agentform', 'http://127.0.0.1:9/hooks');
    // The local control plane creates its environments as kind development; kind cannot change.
    await edit(join(project, 'agentform.yaml'), '      kind: production\n', '');
    // A fresh staging has version 1, not the example's 7.
    await edit(join(project, 'agents', 'support.yaml'), 'promote: {from: staging, version: 7}', 'promote: {from: staging, version: 1}');
    env = {
      OPENAI_API_KEY: 'sk-placeholder-openai',
      ANTHROPIC_API_KEY: 'placeholder-anthropic',
      NPM_TOKEN: 'placeholder-npm',
      CRM_SUPPORT_TOKEN: 'placeholder-crm',
      AGENTFORM_URL_STAGING: server.url,
      AGENTFORM_URL_PRODUCTION: server.url,
      AGENTFORM_STAGING_TOKEN: server.tokens.staging as string,
      AGENTFORM_PRODUCTION_TOKEN: server.tokens.production as string,
    };
    for (const environment of ['staging', 'production']) {
      const apply = await runCli(['apply', project, '-e', environment, '--auto-approve'], { env });
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  it('shows the researcher limit that differs, with the plan renderer, and where production support came from', async () => {
    const result = await runCli(['diff-envs', 'staging', 'production', '-C', project, '--detailed-exitcode'], { env });
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stdout).toContain('~ agent/researcher (update in place)');
    expect(result.stdout).toContain('~ limits.maxTurns: 10 → 15');
    expect(result.stdout).not.toContain('agent/support (update');
    expect(result.stdout).toMatch(/agent\/support\s+staging v1 {2}\| {2}production v1 \(promoted from staging v1\)/);
    expect(result.stdout).toContain('Agents: 1 differ, 0 only in staging, 0 only in production.');
    expect(result.stdout).not.toContain('Plan:');
  });

  it('--json gives the plan and the provenance', async () => {
    const result = await runCli(['diff-envs', 'staging', 'production', '-C', project, '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as {
      plan: { changes: Array<{ address: string; action: string }> };
      provenance: Array<{ agent: string; b?: { promotedFrom?: { environment: string; version: number } } }>;
    };
    expect(parsed.plan.changes.filter((change) => change.action !== 'no-op').map((change) => change.address)).toEqual(['agent/researcher']);
    expect(parsed.provenance.find((entry) => entry.agent === 'support')?.b?.promotedFrom).toEqual({ environment: 'staging', version: 1 });
  });

  it('refuses to compare an environment with itself, without a stack trace', async () => {
    const result = await runCli(['diff-envs', 'staging', 'staging', '-C', project], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('two different environments');
    expect(result.stderr).not.toContain('    at ');
  });
});
