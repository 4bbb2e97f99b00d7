// End to end: `agentform drift` and `ignore:` rules, the real CLI against the local control plane
// (both server profiles). A prompt hot-edited through the API is drift, until an ignore rule says
// it is edited by hand on purpose: then drift, plan and apply all leave it alone, and list it.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calledRpcs, copyExample, READ_RPC, runCli } from '../helpers/cli.js';
import { withLocalApi } from '../helpers/local-api.js';

const env = { OPENAI_API_KEY: 'sk-drift-test', QUICKSTART_SECRET: 'drift-secret' };
const HOT_EDIT = 'Answer in French. (hot edit by the PM)';
const RULE = '  - resource: agent/researcher\n    field: system\n    reason: the PM tunes this prompt by hand\n';

/** The quickstart, applied, with the researcher's prompt then edited directly through the API. */
async function hotEdited(): Promise<string> {
  const dir = await copyExample('quickstart');
  const apply = await runCli(['apply', dir, '--auto-approve'], { env });
  expect(apply.code, apply.stderr).toBe(0);
  await withLocalApi(dir, async (client) => {
    const current = await client.call('agents.get', { slug: 'researcher' });
    await client.call('agents.upsert', { slug: 'researcher', definition: { ...current.definition, system: HOT_EDIT } });
  });
  return dir;
}

async function addToRoot(dir: string, text: string): Promise<void> {
  const file = join(dir, 'agentform.yaml');
  await writeFile(file, `${await readFile(file, 'utf8')}${text}`);
}

function liveSystem(dir: string): Promise<unknown> {
  return withLocalApi(dir, async (client) => (await client.call('agents.get', { slug: 'researcher' })).definition.system);
}

interface DriftJson {
  formatVersion: number;
  environment: string;
  drift: boolean;
  summary: { changed: number; unmanaged: number; ignored: number };
  changed: Array<{ address: string; state: string; fields: Array<{ path: string; before?: unknown; after?: unknown }> }>;
  unmanaged: Array<{ address: string }>;
  ignored: Array<{ address: string; path: string; before?: unknown; rule: string; reason: string }>;
}

describe('agentform drift and ignore rules', () => {
  it('a hot-edited prompt without a rule is drift: exit 2, listed as changed outside', async () => {
    const dir = await hotEdited();
    const drift = await runCli(['drift', dir, '-e', 'dev', '--debug'], { env });
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    expect(drift.stdout).toContain('Changed outside agentform');
    expect(drift.stdout).toContain('~ agent/researcher');
    expect(drift.stdout).toContain('Drift in dev: 1 changed outside, 0 unmanaged, 0 ignored.');
    // Never writes.
    expect(calledRpcs(drift.stderr).filter((rpc) => !READ_RPC.test(rpc))).toEqual([]);

    const json = await runCli(['drift', dir, '-e', 'dev', '--json'], { env });
    expect(json.code, json.stderr).toBe(2);
    const parsed = JSON.parse(json.stdout) as DriftJson;
    expect(parsed).toMatchObject({
      formatVersion: 1,
      environment: 'dev',
      drift: true,
      summary: { changed: 1, unmanaged: 0, ignored: 0 },
      unmanaged: [],
      ignored: [],
    });
    expect(parsed.changed).toEqual([
      { address: 'agent/researcher', kind: 'agent', state: 'changed', fields: [expect.objectContaining({ path: 'system', before: HOT_EDIT })] },
    ]);
  });

  it('under an ignore rule: drift exits 0 and lists it as ignored, plan has no change, apply keeps the live prompt', async () => {
    const dir = await hotEdited();
    await addToRoot(dir, `ignore:\n${RULE}`);

    const drift = await runCli(['drift', dir, '-e', 'dev'], { env });
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect(drift.stdout).toContain('Ignored (ignore rules in agentform.yaml; apply keeps the live values):');
    expect(drift.stdout).toContain(`~ agent/researcher: system = ${JSON.stringify(HOT_EDIT)}`);
    expect(drift.stdout).toContain('# the PM tunes this prompt by hand (rule agent/researcher system)');
    expect(drift.stdout).toContain('No drift in dev');

    const json = JSON.parse((await runCli(['drift', dir, '-e', 'dev', '--json'], { env })).stdout) as DriftJson;
    expect(json).toMatchObject({ drift: false, summary: { changed: 0, unmanaged: 0, ignored: 1 }, changed: [] });
    expect(json.ignored).toEqual([
      {
        address: 'agent/researcher',
        path: 'system',
        before: HOT_EDIT,
        after: expect.any(String),
        rule: 'agent/researcher system',
        reason: 'the PM tunes this prompt by hand',
      },
    ]);

    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.stdout).toContain('Ignored (ignore rules in agentform.yaml');
    const planJson = JSON.parse((await runCli(['plan', dir, '--json'], { env })).stdout) as { ignored?: unknown[] };
    expect(planJson.ignored).toEqual([expect.objectContaining({ address: 'agent/researcher', path: 'system', reason: 'the PM tunes this prompt by hand' })]);
    const markdown = await runCli(['plan', dir, '--markdown'], { env });
    expect(markdown.stdout).toContain('Ignored (ignore rules in agentform.yaml');
    expect(markdown.stdout).toContain('the PM tunes this prompt by hand');

    const apply = await runCli(['apply', dir, '--auto-approve', '--debug'], { env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(calledRpcs(apply.stderr).filter((rpc) => !READ_RPC.test(rpc))).toEqual([]);
    expect(await liveSystem(dir)).toBe(HOT_EDIT);
  });

  it('an update of the resource for another reason (apply and a saved plan) carries the live prompt', async () => {
    const dir = await hotEdited();
    await addToRoot(dir, `ignore:\n${RULE}`);
    const file = join(dir, 'agents.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('maxTurns: 10', 'maxTurns: 12'));
    const plan = await runCli(['plan', dir, '--json', '--out', join(dir, 'saved.plan')], { env });
    expect(plan.code, plan.stderr).toBe(0);
    const changes = (JSON.parse(plan.stdout) as { changes: Array<{ address: string; action: string; fields: Array<{ path: string }> }> }).changes;
    expect(changes.filter((change) => change.action !== 'no-op').map((change) => [change.address, change.fields.map((field) => field.path)])).toEqual([
      ['agent/researcher', ['limits.maxTurns']],
    ]);
    const apply = await runCli(['apply', join(dir, 'saved.plan'), '--auto-approve'], { env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(await liveSystem(dir)).toBe(HOT_EDIT);
    const again = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout).toBe(0);
  });

  it('rollback keeps an ignored field live, like apply', async () => {
    const dir = await hotEdited();
    await addToRoot(dir, `ignore:\n${RULE}`);
    await withLocalApi(dir, async (client) => {
      const current = await client.call('agents.get', { slug: 'researcher' });
      await client.call('agents.upsert', { slug: 'researcher', definition: { ...current.definition, limits: { ...current.definition.limits, maxTurns: 77 } } });
    });
    // v1 is what the first apply wrote: its prompt is the YAML's, its maxTurns 10.
    const rollback = await runCli(['rollback', 'researcher', '--to', '1', '-e', 'dev', '-C', dir, '--auto-approve'], { env });
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(0);
    expect(rollback.stdout).toContain('Ignored (ignore rules in agentform.yaml');
    const live = await withLocalApi(dir, async (client) => (await client.call('agents.get', { slug: 'researcher' })).definition);
    expect(live.system).toBe(HOT_EDIT);
    expect(live.limits?.maxTurns).toBe(10);
  });

  it('an unmanaged agent is drift', async () => {
    const dir = await hotEdited();
    await addToRoot(dir, `ignore:\n${RULE}`);
    await withLocalApi(dir, async (client) => {
      const current = await client.call('agents.get', { slug: 'researcher' });
      await client.call('agents.upsert', { slug: 'stray', definition: { ...current.definition, name: 'stray' } });
    });
    const drift = await runCli(['drift', dir, '-e', 'dev', '--markdown'], { env });
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    expect(drift.stdout).toContain('Unmanaged (live, not in the configuration): `agent/stray`');
    const all = await runCli(['drift', dir, '--all-envs', '--json'], { env });
    expect(all.code, all.stderr).toBe(2);
    expect(JSON.parse(all.stdout)).toMatchObject({ drift: true, environments: [{ environment: 'dev', unmanaged: [{ address: 'agent/stray' }] }] });
  });

  it('an expired rule is a validate error at its until, and drift stops with exit 1', async () => {
    const dir = await copyExample('quickstart');
    await addToRoot(dir, `ignore:\n${RULE}    until: 2020-01-31\n`);
    const validate = await runCli(['validate', dir], { env });
    expect(validate.code, validate.stdout + validate.stderr).toBe(1);
    expect(`${validate.stdout}${validate.stderr}`).toMatch(
      /agentform\.yaml:12:12: ignore\[0\]\.until: ignore rule "agent\/researcher system" expired on 2020-01-31/,
    );
    const drift = await runCli(['drift', dir, '-e', 'dev'], { env });
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain('expired on 2020-01-31');
    expect(drift.stderr).not.toContain('    at ');
  });
  // ignore: and the plan's scope together: a resource the plan sets aside (--exclude, forget:) is
  // not planned at all, so it has no ignored difference to list either.
  it('an ignored field of an excluded resource is neither a change nor listed as ignored', async () => {
    const dir = await hotEdited();
    await addToRoot(dir, `ignore:\n${RULE}`);
    const plan = await runCli(['plan', dir, '--json', '--exclude', 'agent/researcher', '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as { ignored?: unknown[]; scope?: { setAside: Array<{ address: string; as: string }> } };
    expect(json.ignored).toBeUndefined();
    expect(json.scope?.setAside).toEqual([expect.objectContaining({ address: 'agent/researcher', as: 'excluded' })]);
  });
});
