// End to end: the real CLI against the embedded local control plane (HTTP on 127.0.0.1).
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { startLocalControlPlane } from '../../src/server/embedded.js';
import { READ_RPC, calledRpcs, copyExample, runCli } from '../helpers/cli.js';

const SENTINEL = 'sk-SENTINEL-provider-secret-7f3a';
const SECRET_SENTINEL = 'SENTINEL-secret-value-19c2';
const env = { OPENAI_API_KEY: SENTINEL, QUICKSTART_SECRET: SECRET_SENTINEL };

function expectNoSecrets(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(SENTINEL);
    expect(text).not.toContain(SECRET_SENTINEL);
    expect(text).not.toMatch(/svc_[A-Za-z0-9-]+_[A-Za-z0-9]{8,}/);
  }
}

/** A fresh copy of the quickstart: an empty local environment. */
function fresh(): Promise<string> {
  return copyExample('quickstart');
}

/** A fresh copy of the quickstart, applied: the live state matches the configuration. */
async function applied(): Promise<string> {
  const dir = await fresh();
  const apply = await runCli(['apply', dir, '--auto-approve'], { env });
  expect(apply.code, apply.stderr).toBe(0);
  return dir;
}

/** An applied quickstart whose researcher was changed behind agentform's back (maxTurns 99). */
async function drifted(dir: string): Promise<void> {
  const local = await startLocalControlPlane({ dataDir: join(dir, '.agentform', 'local'), environments: ['dev'] });
  const client = new ControlApiClient({ baseUrl: local.url, credential: { kind: 'key', token: local.tokens.dev as string } });
  try {
    const current = await client.call('agents.get', { slug: 'researcher' });
    await client.call('agents.upsert', { slug: 'researcher', definition: { ...current.definition, limits: { ...current.definition.limits, maxTurns: 99 } } });
  } finally {
    await client.close();
    await local.close();
  }
}

// Each case sets up its own project and environment: a failure in one never cascades to the next.
describe('plan and apply the quickstart against the local control plane', () => {
  it('plans everything as creates on an empty environment, without writing', async () => {
    const dir = await fresh();
    const result = await runCli(['plan', dir, '--detailed-exitcode', '--debug'], { env });
    expect(result.stderr).toContain('local control plane');
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/Plan: \d+ to add, 0 to change, 0 to replace, 0 to destroy\./);
    expect(result.stdout).toContain('+ agent/support');
    const rpcs = calledRpcs(result.stderr);
    expect(rpcs.length).toBeGreaterThan(0);
    expect(rpcs.filter((rpc) => !READ_RPC.test(rpc))).toEqual([]);
    expectNoSecrets(result.stdout, result.stderr);
  });

  it('refuses to apply without a terminal unless --auto-approve is given', async () => {
    const dir = await fresh();
    const result = await runCli(['apply', dir], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--auto-approve');
    expect(result.stderr).not.toContain('    at ');
  });

  it('applies from empty, then a second plan shows no changes', async () => {
    const dir = await fresh();
    const apply = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 replaced, 0 destroyed\. Total time: \d+(ms|\.\ds)\.\n/);
    expectNoSecrets(apply.stdout, apply.stderr);

    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes. Remote state matches the configuration.');
  });

  it('re-applying makes no write request and creates no agent version', async () => {
    const dir = await applied();
    const apply = await runCli(['apply', dir, '--auto-approve', '--debug'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(calledRpcs(apply.stderr).filter((rpc) => !READ_RPC.test(rpc))).toEqual([]);
    expectNoSecrets(apply.stdout, apply.stderr);
  });

  it('a changed field in YAML is exactly one change, and apply touches exactly that resource', async () => {
    const dir = await applied();
    const file = join(dir, 'agents.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('maxTurns: 20', 'maxTurns: 25'));
    const plan = await runCli(['plan', dir, '--json'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    const parsed = JSON.parse(plan.stdout) as { changes: Array<{ address: string; action: string; fields: unknown[] }> };
    const changed = parsed.changes.filter((change) => change.action !== 'no-op');
    expect(changed).toEqual([
      expect.objectContaining({ address: 'agent/support', action: 'update', fields: [{ path: 'limits.maxTurns', before: 20, after: 25 }] }),
    ]);
    // The compact plan: the same document without the no-op resources.
    const compact = await runCli(['plan', dir, '--json', '--changes-only'], { env });
    expect(compact.code, compact.stderr).toBe(0);
    expect(JSON.parse(compact.stdout)).toEqual({ ...parsed, changes: changed });
    expect(compact.stdout.length).toBeLessThan(plan.stdout.length);
    const textOnly = await runCli(['plan', dir, '--changes-only'], { env });
    expect([textOnly.code, textOnly.stderr]).toEqual([1, expect.stringContaining('--changes-only shapes the JSON plan')]);

    const apply = await runCli(['apply', dir, '--auto-approve', '--debug'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(calledRpcs(apply.stderr).filter((rpc) => !READ_RPC.test(rpc))).toEqual(['agents.upsert']);
    expect(apply.stdout).toMatch(/agent\/support: Updated after \S+ \(version 2\)/);
  });

  it('shows a change made behind its back (drift), and --detailed-exitcode exits 2', async () => {
    const dir = await applied();
    await drifted(dir);
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('~ agent/researcher');
    expect(plan.stdout).toMatch(/limits\.maxTurns: 99 → 10/);
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to replace, 0 to destroy.');
  });

  it('saves a plan without secret values, applies it, and refuses a stale one', async () => {
    const dir = await applied();
    await drifted(dir);
    // CI runs plan and apply from the same place (the repository root): the plan records the project relative to it.
    const cwd = dirname(dir);
    const project = basename(dir);
    const plan = await runCli(['plan', project, '--out', 'saved-plan.json'], { env, cwd });
    expect(plan.code, plan.stderr).toBe(0);
    const saved = join(cwd, 'saved-plan.json');
    expectNoSecrets(await readFile(saved, 'utf8'));

    const file = join(dir, 'agents.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('maxTurns: 10', 'maxTurns: 11'));
    const stale = await runCli(['apply', 'saved-plan.json'], { env, cwd });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('stale');
    expect(stale.stderr).toContain('agent/researcher');

    await writeFile(file, (await readFile(file, 'utf8')).replace('maxTurns: 11', 'maxTurns: 10'));
    const apply = await runCli(['apply', 'saved-plan.json'], { env, cwd });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Apply complete!');
    const after = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(after.code, after.stdout).toBe(0);
  });

  it('renders markdown for pull requests and the graph offline', async () => {
    const dir = await applied();
    const agents = join(dir, 'agents.yaml');
    await writeFile(agents, (await readFile(agents, 'utf8')).replace('maxTurns: 20', 'maxTurns: 26'));
    const markdown = await runCli(['plan', dir, '--markdown'], { env });
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain('```mermaid');
    expect(markdown.stdout).toContain('agent/support');
    expectNoSecrets(markdown.stdout);
    const graph = await runCli(['graph', dir]);
    expect(graph.code, graph.stderr).toBe(0);
    expect(graph.stdout).toContain('flowchart LR');
    expect(graph.stdout).toContain('agent/support');
  });
});
