// Leaving safely and sharing an environment (issue 47), end to end: the real CLI against a local
// control plane on 127.0.0.1, under the profile of the vitest project. `forget:` keeps a resource
// under prune, `protect:` refuses to lose one, `--exclude` is baked into saved plans, and two
// projects with disjoint `owns:` apply and prune one environment in turn without touching each other.
import { mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ControlApiClient } from '../../src/api/client.js';
import { READ_RPC, calledRpcs, runCli } from '../helpers/cli.js';
import { startScratchPlane } from '../helpers/local-api.js';

interface Plane {
  client: ControlApiClient;
  env: NodeJS.ProcessEnv;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function startPlane(): Promise<Plane> {
  const plane = await startScratchPlane();
  cleanups.push(plane.close);
  return plane;
}

const provider = (name: string) => `kind: Provider\nname: ${name}\nspec:\n  type: openai\n  secret: \${env:OPENAI_API_KEY:-sk-test-provider}\n`;
const agent = (name: string, providerName: string, maxTurns = 5) =>
  `kind: Agent\nname: ${name}\nspec:\n  model: {provider: ${providerName}, model: gpt-4o-mini}\n  system: "You are helpful."\n  tools: []\n  policies: {}\n  limits: {maxTurns: ${maxTurns}}\n`;

async function project(root: string, files: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'agentform-owner-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await writeProject(dir, root, files);
  return dir;
}

async function writeProject(dir: string, root: string, files: Record<string, string>): Promise<void> {
  await writeFile(join(dir, 'agentform.yaml'), root);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

const ROOT = 'version: 1\nenvironments:\n  dev:\n    url: local\n';
const writes = (stderr: string) => calledRpcs(stderr).filter((rpc) => !READ_RPC.test(rpc));
const liveAgents = async (client: ControlApiClient) => (await client.agentsList()).map((item) => item.slug).sort();

describe('forget: under prune', () => {
  it('keeps a forgotten resource live and lists it with its reason', async () => {
    const plane = await startPlane();
    const dir = await project(ROOT, { 'openai.yaml': provider('openai'), 'a.yaml': agent('a', 'openai'), 'legacy.yaml': agent('legacy', 'openai') });
    expect((await runCli(['apply', dir, '--auto-approve'], { env: plane.env })).code).toBe(0);

    await rm(join(dir, 'legacy.yaml'));
    await writeProject(dir, `${ROOT}forget:\n  - address: agent/legacy\n    reason: handed over to team B\n`, {});
    const plan = await runCli(['plan', dir, '--prune', '--detailed-exitcode'], { env: plane.env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Forgotten');
    expect(plan.stdout).toMatch(/agent\/legacy \(forget: agent\/legacy \(agentform\.yaml:\d+:\d+\): handed over to team B\)/);
    expect(plan.stdout).not.toContain('- agent/legacy');

    const apply = await runCli(['apply', dir, '--prune', '--auto-approve', '--debug'], { env: plane.env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(writes(apply.stderr)).toEqual([]);
    expect(await liveAgents(plane.client)).toEqual(['a', 'legacy']);
  });

  it('refuses a resource both declared and forgotten, located', async () => {
    const dir = await project(`${ROOT}forget: [agent/legacy]\n`, { 'openai.yaml': provider('openai'), 'legacy.yaml': agent('legacy', 'openai') });
    const result = await runCli(['validate', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/legacy\.yaml:2:7.*agent\/legacy is declared, and forget: agent\/legacy/);
  });
});

describe('protect: in agentform.yaml', () => {
  it('refuses to destroy a protected resource whose file is deleted; nothing is written', async () => {
    const plane = await startPlane();
    const dir = await project(ROOT, { 'openai.yaml': provider('openai'), 'a.yaml': agent('a', 'openai'), 'billing.yaml': agent('billing', 'openai') });
    expect((await runCli(['apply', dir, '--auto-approve'], { env: plane.env })).code).toBe(0);

    await rm(join(dir, 'billing.yaml'));
    await writeProject(dir, `${ROOT}    prune: true\n    protect:\n      - address: agent/bill*\n        reason: customer-facing\n`, {
      'a.yaml': agent('a', 'openai', 7),
    });
    const plan = await runCli(['plan', dir], { env: plane.env });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/agent\/billing would be destroyed .*protected by protect: agent\/bill\* \(agentform\.yaml:\d+:\d+\): customer-facing/);

    const apply = await runCli(['apply', dir, '--auto-approve', '--debug'], { env: plane.env });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('protected by protect: agent/bill*');
    expect(writes(apply.stderr)).toEqual([]);
    expect(await liveAgents(plane.client)).toEqual(['a', 'billing']);
  });

  it('treats a matched declared key like protect: true: a missing token file is a warning, in plan and drift', async () => {
    const plane = await startPlane();
    const key = 'kind: ApiKey\nname: ci\nspec:\n  scopes: [read]\n  tokenFile: .agentform/ci.token\n';
    const dir = await project(ROOT, { 'key.yaml': key });
    const applied = await runCli(['apply', dir, '--auto-approve'], { env: plane.env });
    expect(applied.code, applied.stderr).toBe(0);

    await rm(join(dir, '.agentform', 'ci.token'));
    await writeProject(dir, `${ROOT}    protect: [apiKey/ci]\n`, {});
    const plan = await runCli(['plan', dir], { env: plane.env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout + plan.stderr).toContain('it is protected, so it is not replaced');
    expect(plan.stdout).not.toMatch(/-\/\+ apiKey\/ci/);

    const drift = await runCli(['drift', dir], { env: plane.env });
    expect(drift.code, drift.stderr).toBe(0);
    expect(drift.stderr).not.toContain('refusing');
  });
});

describe('--exclude', () => {
  it('is baked into a saved plan: apply keeps the exclusion and refuses a new one', async () => {
    const plane = await startPlane();
    const files = { 'openai.yaml': provider('openai'), 'a.yaml': agent('team-a-bot', 'openai'), 'b.yaml': agent('team-b-bot', 'openai') };
    const dir = await project(ROOT, files);
    const out = join(dir, 'plan.json');
    const plan = await runCli(['plan', dir, '--exclude', 'agent/team-b-*', '--out', out], { env: plane.env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Excluding (--exclude): agent/team-b-*');
    expect(plan.stdout).toContain('! agent/team-b-bot (--exclude agent/team-b-*)');
    expect(plan.stdout).not.toContain('+ agent/team-b-bot');
    // The safety review judges what the plan covers: the same finding for the planned agent only.
    expect(plan.stdout).toContain('] agent/team-a-bot: ');
    expect(plan.stdout).not.toContain('] agent/team-b-bot: ');

    const again = await runCli(['apply', out, '--exclude', 'agent/x'], { env: plane.env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('a saved plan applies with the --exclude it was made with');

    // The excluded agent changes live meanwhile (another team's apply): the plan is not stale.
    await plane.client.agentsUpsert({
      slug: 'team-b-bot',
      definition: { name: 'B', model: { provider: 'openai', model: 'gpt-4o-mini' }, system: 'theirs', tools: [], policies: {}, limits: {} },
    });
    const apply = await runCli(['apply', out], { env: plane.env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(await liveAgents(plane.client)).toEqual(['team-a-bot', 'team-b-bot']);
    const theirs = (await plane.client.agentsList()).find((item) => item.slug === 'team-b-bot');
    expect(JSON.stringify(theirs)).toContain('theirs');
  });
});

describe('owns: two projects share one environment', () => {
  const rootOwning = (team: string) => `version: 1\nowns: [agent/${team}-*, provider/${team}-*]\nenvironments:\n  dev:\n    url: local\n    prune: true\n`;
  const filesOf = (team: string, round: number) => ({
    'provider.yaml': provider(`${team}-openai`),
    'main.yaml': agent(`${team}-main`, `${team}-openai`, round),
    'round.yaml': agent(`${team}-r${round}`, `${team}-openai`),
  });
  // What a write would change (ids, versions, write times, the definition's hash), not the read
  // times some servers stamp on every answer.
  const snapshot = async (client: ControlApiClient, team: string) =>
    JSON.stringify({
      agents: (await client.agentsList())
        .filter((item) => item.slug.startsWith(`${team}-`))
        .map((item) => [item.slug, item.agentId, item.version, item.createdAt, item.image?.specHash]),
      providers: (await client.providersList())
        .filter((item) => item.name.startsWith(`${team}-`))
        .map((item) => [item.name, item.id, item.createdAt, item.updatedAt]),
    });

  it('apply and prune in turn for 5 rounds, never touching the other', async () => {
    const plane = await startPlane();
    const dirs = { a: await project(rootOwning('a'), filesOf('a', 1)), b: await project(rootOwning('b'), filesOf('b', 1)) };
    for (let round = 1; round <= 5; round++) {
      for (const [team, other] of [
        ['a', 'b'],
        ['b', 'a'],
      ] as const) {
        await rm(join(dirs[team], 'round.yaml'));
        await writeProject(dirs[team], rootOwning(team), filesOf(team, round));
        const before = await snapshot(plane.client, other);
        const apply = await runCli(['apply', dirs[team], '--auto-approve'], { env: plane.env });
        expect(apply.code, apply.stderr).toBe(0);
        expect(apply.stdout).not.toContain(`${other}-`);
        expect(await snapshot(plane.client, other)).toBe(before);
        const plan = await runCli(['plan', dirs[team], '--detailed-exitcode'], { env: plane.env });
        expect(plan.code, plan.stdout).toBe(0);
        expect(plan.stdout).not.toContain(`${other}-`);
      }
      expect(await liveAgents(plane.client)).toEqual(['a-main', `a-r${round}`, 'b-main', `b-r${round}`]);
    }
  }, 120_000);

  // Review finding: rollback and promote wrote agents directly, past owns: and forget:.
  it('rollback of an agent outside owns: is refused before anything is written', async () => {
    const plane = await startPlane();
    const dirs = { a: await project(rootOwning('a'), filesOf('a', 1)), b: await project(rootOwning('b'), filesOf('b', 1)) };
    for (const dir of [dirs.a, dirs.b]) expect((await runCli(['apply', dir, '--auto-approve'], { env: plane.env })).code).toBe(0);
    const before = await snapshot(plane.client, 'b');
    const rollback = await runCli(['rollback', 'b-main', '--to', '1', '-e', 'dev', '-C', dirs.a, '--auto-approve', '--debug'], { env: plane.env });
    expect(rollback.code).toBe(1);
    expect(rollback.stderr).toContain('refusing to roll back agent/b-main: it is outside what this project owns (owns: agent/a-*, provider/a-*)');
    expect(writes(rollback.stderr)).toEqual([]);
    expect(await snapshot(plane.client, 'b')).toEqual(before);
  });

  it('an --exclude that can never match is refused, naming the kind', async () => {
    const plane = await startPlane();
    const dir = await project(rootOwning('a'), filesOf('a', 1));
    const plan = await runCli(['plan', dir, '--exclude', 'agents/a-*'], { env: plane.env });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('--exclude: unknown kind "agents" in "agents/a-*"');
  });

  it('declaring a resource outside owns: is a validate error, located', async () => {
    const dir = await project(rootOwning('a'), { 'provider.yaml': provider('a-openai'), 'stray.yaml': agent('b-bot', 'a-openai') });
    const result = await runCli(['validate', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/stray\.yaml:2:7.*agent\/b-bot is outside what this project owns \(owns: agent\/a-\*, provider\/a-\*\)/);
  });
});
