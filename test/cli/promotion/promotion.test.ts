// End to end: promote, declarative promotion, history, rollback and plan --all-envs with the real
// CLI against the embedded local control plane holding three environments (dev, staging, production).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { READ_RPC, calledRpcs, copyExample, runCli } from '../../helpers/cli.js';
import { editFile, GITOPS_SECRETS, gitopsOnLocalPlanes } from '../../helpers/gitops-example.js';

const env = GITOPS_SECRETS;
const edit = editFile;

interface HistoryJson {
  versions: Array<{ version: number; createdAt: string | null; promotedFrom: { environment: string | null; version: number; agentId: string } | null }>;
}

async function history(dir: string, agent: string, environment: string): Promise<HistoryJson> {
  const result = await runCli(['history', agent, '-e', environment, '-C', dir, '--json'], { env });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as HistoryJson;
}

function writes(stderr: string): string[] {
  return calledRpcs(stderr).filter((rpc) => !READ_RPC.test(rpc));
}

describe('promotion across three local environments', () => {
  let dir: string;
  beforeAll(async () => {
    // Production of kind development: the rollbacks and promotions below are judged by warnings.
    dir = await gitopsOnLocalPlanes({ production: false });
    const staging = await runCli(['apply', dir, '-e', 'staging', '--auto-approve'], { env });
    expect(staging.code, staging.stderr).toBe(0);
  }, 60_000);

  it('declarative: plan shows the provenance, apply records promotedFrom, a second apply writes nothing', async () => {
    const plan = await runCli(['plan', dir, '-e', 'production', '--json'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    const support = (JSON.parse(plan.stdout) as { changes: Array<{ address: string; action: string; reason?: string }> }).changes.find(
      (change) => change.address === 'agent/support',
    );
    expect(support).toMatchObject({ action: 'create', reason: expect.stringContaining('promoted from staging v1') });

    const apply = await runCli(['apply', dir, '-e', 'production', '--auto-approve'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    const versions = (await history(dir, 'support', 'production')).versions;
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ version: 1, promotedFrom: { environment: 'staging', version: 1 } });

    const again = await runCli(['apply', dir, '-e', 'production', '--auto-approve', '--debug'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(writes(again.stderr)).toEqual([]);
    expect((await history(dir, 'support', 'production')).versions).toHaveLength(1);
  }, 60_000);

  it('declarative: a missing source version is a clear error', async () => {
    await edit(join(dir, 'agents', 'support.yaml'), 'promote: {from: staging, version: 1}', 'promote: {from: staging, version: 9}');
    try {
      const plan = await runCli(['plan', dir, '-e', 'production'], { env });
      expect(plan.code).toBe(1);
      expect(plan.stderr).toContain('environment staging has no agent support version 9');
      expect(plan.stderr).not.toContain('    at ');
    } finally {
      await edit(join(dir, 'agents', 'support.yaml'), 'promote: {from: staging, version: 9}', 'promote: {from: staging, version: 1}');
    }
  }, 60_000);

  it('imperative: promote keeps the overlay fields, records provenance; a second promote is a no-op', async () => {
    await edit(join(dir, 'agents', 'researcher.yaml'), 'model: gpt-4o-mini', 'model: gpt-4o');
    const staging = await runCli(['apply', dir, '-e', 'staging', '--auto-approve'], { env });
    expect(staging.code, staging.stderr).toBe(0);

    const refused = await runCli(['promote', 'researcher', '--from', 'staging', '--to', 'production', '-C', dir], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--auto-approve');

    const promote = await runCli(['promote', 'researcher', '--from', 'staging', '--to', 'production', '-C', dir, '--auto-approve'], { env });
    expect(promote.code, promote.stderr).toBe(0);
    expect(promote.stdout).toContain('~ agent/researcher');
    expect(promote.stdout).toContain('~ model.model: "gpt-4o-mini" → "gpt-4o"');
    expect(promote.stdout).not.toContain('limits.maxTurns: 10 →');
    expect(promote.stdout).toContain("Kept production's limits.maxTurns = 10 (set by its overlay; staging v2 has 15)");
    expect(promote.stdout).toContain('Promoted researcher: staging v2 → production v2');

    const versions = (await history(dir, 'researcher', 'production')).versions;
    expect(versions.map((version) => version.version)).toEqual([2, 1]);
    expect(versions[0]?.promotedFrom).toMatchObject({ environment: 'staging', version: 2 });
    expect(versions[1]?.promotedFrom).toBeNull();

    const again = await runCli(['promote', 'researcher', '--from', 'staging', '--to', 'production', '-C', dir, '--auto-approve', '--debug'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('production v2 already came from staging v2; nothing to do.');
    expect(writes(again.stderr)).toEqual([]);

    const table = await runCli(['history', 'researcher', '-e', 'production', '-C', dir], { env });
    expect(table.stdout).toMatch(/VERSION\s+CREATED\s+IMAGE\s+PROMOTED FROM/);
    expect(table.stdout).toMatch(/v2 .* staging\/researcher v2/);
  }, 60_000);

  it('rollback upserts the old definition as a new version and warns that Git disagrees', async () => {
    const rollback = await runCli(['rollback', 'researcher', '--to', '1', '-e', 'production', '-C', dir, '--auto-approve'], { env });
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(rollback.stdout).toContain('~ model.model: "gpt-4o" → "gpt-4o-mini"');
    expect(rollback.stdout).toContain('v3 has the definition of v1');
    expect(rollback.stderr).toContain('now disagrees with the live state of production');
    const versions = (await history(dir, 'researcher', 'production')).versions;
    expect(versions.map((version) => version.version)).toEqual([3, 2, 1]);
    expect(versions[0]?.promotedFrom).toBeNull();
  }, 60_000);

  it('plan --all-envs plans every environment with one summary', async () => {
    const plan = await runCli(['plan', dir, '--all-envs'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/== dev /);
    expect(plan.stdout).toMatch(/== production /);
    expect(plan.stdout).toMatch(/ENVIRONMENT\s+ADD\s+CHANGE\s+REPLACE\s+DESTROY\s+POLICY\s+STATUS/);
    expect(plan.stdout).toMatch(/^staging\s+0\s+0\s+0\s+0\s+(ok|\d+ warnings?)\s+no changes$/m);
    expect(plan.stdout).toMatch(/^dev\s+\d+/m);
    expect(plan.stdout).toMatch(/^production\s+/m);
    // Each environment's plan carries its safety review, as plan -e does.
    expect(plan.stdout.match(/^Policy: /gm)).toHaveLength(3);

    // A finding in one environment shows in its row and in the JSON (the example's custom rule:
    // every agent has a description; a warning outside production, where it is an error that
    // apply would refuse: the run exits 1, every environment's plan printed all the same).
    const agent = join(dir, 'agents', 'researcher.yaml');
    const original = await readFile(agent, 'utf8');
    await writeFile(agent, original.replace(/^ {2}description: .*\n/m, ''));
    try {
      const json = await runCli(['plan', dir, '--all-envs', '--json'], { env });
      expect(json.code, json.stderr).toBe(1);
      // Under --json the reason is one error object, the code apply's refusal has.
      expect(JSON.parse(json.stderr)).toEqual({
        error: expect.objectContaining({ code: 'policy_refused', message: 'the plan for production has 1 policy error; apply would refuse it' }),
      });
      const parsed = JSON.parse(json.stdout) as {
        environments: Array<{ environment: string; safety?: { findings: Array<{ rule: string; address: string }> } }>;
      };
      const dev = parsed.environments.find((entry) => entry.environment === 'dev');
      expect(dev?.safety?.findings).toContainEqual(expect.objectContaining({ rule: 'agent-has-description', address: 'agent/researcher' }));
      const text = await runCli(['plan', dir, '--all-envs'], { env });
      expect(text.stdout).toMatch(/^dev\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+ warnings?\s/m);
    } finally {
      await writeFile(agent, original);
    }
  }, 60_000);
});

describe('a key must belong to the environment it is used for', () => {
  it.each([
    ['plan', ['plan', '-e', 'production', '--debug']],
    ['history', ['history', 'support', '-e', 'production', '--debug']],
  ])(
    '%s refuses a staging key for production before any request, naming both',
    async (_, args) => {
      const dir = await copyExample('gitops');
      const key = 'svc_staging_SENTINELsecret123';
      const withDir = args[0] === 'plan' ? [args[0], dir, ...args.slice(1)] : [...args, '-C', dir];
      const result = await runCli(withDir, { env: { ...env, AGENTFORM_TOKEN_PRODUCTION: key } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('AGENTFORM_TOKEN_PRODUCTION');
      expect(result.stderr).toMatch(/environment staging, not production/);
      expect(calledRpcs(result.stderr)).toEqual([]);
      expect(result.stderr + result.stdout).not.toContain('SENTINELsecret123');
    },
    30_000,
  );
});
