// End to end: apply an example, export the environment with the real CLI, then validate and plan
// the export against the same environment: 0 problems and "No changes".
import { cp, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { parse } from 'yaml';
import { copyExample, runCli } from '../helpers/cli.js';

const SENTINELS = ['sk-SENTINEL-openai-5d1e', 'SENTINEL-anthropic-77a0', 'SENTINEL-npm-0c4b', 'SENTINEL-crm-e912', 'SENTINEL-quickstart-3b8f'];

async function allText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && !entry.parentPath.includes('.agentform'));
  return (await Promise.all(files.map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')))).join('\n');
}

function expectNoSecrets(...texts: string[]): void {
  for (const text of texts) {
    for (const sentinel of SENTINELS) expect(text).not.toContain(sentinel);
    expect(text).not.toMatch(/svc_[A-Za-z0-9-]+_[A-Za-z0-9]{8,}/);
  }
}

/** The example's connection points at example.com, which the server would try to reach; tests only talk to 127.0.0.1. */
async function stayOnLoopback(project: string): Promise<void> {
  const connections = join(project, 'platform', 'connections.yaml');
  await writeFile(
    connections,
    (await readFile(connections, 'utf8'))
      .replace('https://crm-tools.example.com/mcp', 'http://127.0.0.1:9/mcp')
      .replace('https://hooks.example.com/agentform', 'http://127.0.0.1:9/hooks'),
  );
}

/** The variables an export asks for, each set to a placeholder value. */
function neededVariables(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(/^ {2}([A-Z][A-Z0-9_]*) {2,}/gm)].map((match) => [match[1] as string, `placeholder-${match[1]}`]));
}

describe('export the quickstart from the local control plane (url: local)', () => {
  const env = { OPENAI_API_KEY: SENTINELS[0] as string, QUICKSTART_SECRET: SENTINELS[4] as string };
  let project: string;
  let out: string;
  let exported: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    project = await copyExample('quickstart');
    const apply = await runCli(['apply', project, '--auto-approve'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    out = join(await mkdtemp(join(tmpdir(), 'agentform-export-')), 'exported');
    exported = await runCli(['export', '-e', 'dev', '--out', out], { cwd: project, env });
  });

  it('writes the project and lists the variables it needs', async () => {
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('Exported environment dev');
    expect(exported.stdout).toMatch(/PROVIDER_OPENAI_SECRET +the credential of provider openai/);
    expect(exported.stdout).toMatch(/SECRET_BUILD_TOKEN +the value of secret build-token/);
    expect((await readdir(out, { recursive: true })).sort()).toEqual([
      '.vscode',
      '.vscode/settings.json',
      'agentform.yaml',
      'agents',
      'agents/researcher.yaml',
      'agents/support.yaml',
      'connections.yaml',
      'prompts',
      'prompts/researcher.md',
      'prompts/support.md',
      'providers.yaml',
      'schemas',
      'schemas/agent.schema.json',
      'schemas/agentform.schema.json',
      'schemas/agentform.test.schema.json',
      'schemas/agenttemplate.schema.json',
      'schemas/apikey.schema.json',
      'schemas/connection.schema.json',
      'schemas/provider.schema.json',
      'schemas/secret.schema.json',
      'secrets.yaml',
    ]);
    expect(await readFile(join(out, 'prompts/support.md'), 'utf8')).toBe(await readFile(join(project, 'prompts/support.md'), 'utf8'));
    const support = await readFile(join(out, 'agents/support.yaml'), 'utf8');
    expect(support).toContain('system: ${file:../prompts/support.md}');
    // Editors find the schema beside the project, relative to each file: no URL to serve.
    expect(support.split('\n')[0]).toBe('# yaml-language-server: $schema=../schemas/agent.schema.json');
    expect((await readFile(join(out, 'agentform.yaml'), 'utf8')).split('\n')[0]).toBe('# yaml-language-server: $schema=./schemas/agentform.schema.json');
    // What the server reports is exported, its defaults included: another server's may differ.
    expect(support).toMatch(/reasoning: /);
    expect(support).toMatch(/keepRecentMessages: /);
    expectNoSecrets(exported.stdout, exported.stderr, await allText(out));
  });

  it('validates with 0 errors', async () => {
    const result = await runCli(['validate', out], { env: neededVariables(exported.stdout) });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toMatch(/error/i);
    // Values are exported as the server reports them; one the API does not name (the local control
    // plane's environment kind "development", another profile's enum values) is only a warning.
    for (const line of (result.stdout + result.stderr).split('\n').filter((text) => /warning/i.test(text) && !/^The configuration is valid/.test(text))) {
      expect(line).toContain('is not a known value');
    }
  });

  it('planned against the same environment: no changes', async () => {
    // url: local means the local control plane of the project directory: give the export the same data.
    await cp(join(project, '.agentform'), join(out, '.agentform'), { recursive: true });
    const plan = await runCli(['plan', out, '--detailed-exitcode'], { env: neededVariables(exported.stdout) });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes. Remote state matches the configuration.');
    expect(plan.stdout).not.toContain('?'); // nothing unmanaged either
  });

  it('refuses a non-empty --out without --force, and overwrites with it', async () => {
    const refused = await runCli(['export', '-e', 'dev', '--out', out], { cwd: project, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is not empty');
    expect(refused.stderr).not.toContain('    at ');
    const forced = await runCli(['export', '-e', 'dev', '--out', out, '--force'], { cwd: project, env });
    expect(forced.code, forced.stderr).toBe(0);
  });
});

describe('export a remote environment (gitops staging) from a control plane over HTTP', () => {
  let server: LocalControlPlane;
  let project: string;
  let out: string;
  let connection: Record<string, string>;
  const secrets = {
    OPENAI_API_KEY: SENTINELS[0] as string,
    ANTHROPIC_API_KEY: SENTINELS[1] as string,
    NPM_TOKEN: SENTINELS[2] as string,
    CRM_SUPPORT_TOKEN: SENTINELS[3] as string,
  };

  beforeAll(async () => {
    server = await startLocalControlPlane({ dataDir: await mkdtemp(join(tmpdir(), 'agentform-export-server-')), environments: ['staging'] });
    connection = { AGENTFORM_URL_STAGING: server.url, AGENTFORM_TOKEN_STAGING: server.tokens.staging as string };
    project = await copyExample('gitops');
    await stayOnLoopback(project);
    const apply = await runCli(['apply', project, '-e', 'staging', '--auto-approve'], {
      env: { ...secrets, ...connection, AGENTFORM_STAGING_TOKEN: connection.AGENTFORM_TOKEN_STAGING as string },
    });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    out = join(await mkdtemp(join(tmpdir(), 'agentform-export-')), 'staging');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('without a project: --url and --token, then validate and plan the export: no changes', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'agentform-no-project-'));
    const exported = await runCli(['export', '--url', server.url, '--token', connection.AGENTFORM_TOKEN_STAGING as string, '--out', out], { cwd });
    expect(exported.code, exported.stderr).toBe(0);
    // The key in use is recognised by its prefix and left out; the declared one is exported.
    expect(exported.stdout).toContain('1 connection (1 grant), 2 agents, 1 API key.');
    for (const name of ['AGENTFORM_TOKEN_STAGING', 'PROVIDER_OPENAI_SECRET', 'PROVIDER_ANTHROPIC_SECRET', 'SECRET_NPM_TOKEN', 'GRANT_CRM_SUPPORT'])
      expect(exported.stdout).toContain(name);
    const root = await readFile(join(out, 'agentform.yaml'), 'utf8');
    expect(root).toContain('token: ${env:AGENTFORM_TOKEN_STAGING}');
    const settings = (parse(root) as { environments: { staging: { settings: Record<string, unknown> } } }).environments.staging.settings;
    expect(settings).toMatchObject({ name: 'Staging', group: 'pre-production', spend: { dailyUsd: 50 } });
    expect(await readFile(join(out, 'connections.yaml'), 'utf8')).toContain('accessToken: ${env:GRANT_CRM_SUPPORT}');
    expect(await readFile(join(out, 'apikeys.yaml'), 'utf8')).toContain('name: dashboard-readonly');
    expectNoSecrets(exported.stdout, exported.stderr, await allText(out));

    const variables = { ...neededVariables(exported.stdout), ...connection };
    const validate = await runCli(['validate', out], { env: variables });
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const plan = await runCli(['plan', out, '--detailed-exitcode'], { env: variables });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes. Remote state matches the configuration.');
  });

  it('the original project and the export agree: planning the original after export is clean too', async () => {
    const plan = await runCli(['plan', project, '-e', 'staging', '--detailed-exitcode'], {
      env: { ...secrets, ...connection, AGENTFORM_STAGING_TOKEN: connection.AGENTFORM_TOKEN_STAGING as string },
    });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
