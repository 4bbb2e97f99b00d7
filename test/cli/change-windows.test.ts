// Change windows (issue 48), end to end: the real CLI against a local control plane on 127.0.0.1,
// under the profile of the vitest project. Inside a window of prod, apply (fresh or a saved plan),
// promote and rollback refuse before any write; --break-glass lets a change through and records
// who, why and when; plan says an apply now would be refused. "Now" is set with AGENTFORM_NOW.
import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ControlApiClient } from '../../src/api/client.js';
import { latestAgentVersion } from '../../src/state/agents.js';
import { READ_RPC, calledRpcs, runCli } from '../helpers/cli.js';
import { startScratchPlane } from '../helpers/local-api.js';

const INSIDE = '2026-12-24T10:00:00+01:00';
const OUTSIDE = '2026-12-10T10:00:00+01:00';
// A Saturday, inside the weekly window only.
const WEEKEND = '2026-12-12T10:00:00+01:00';

const ROOT = `version: 1
environments:
  dev:
    url: local
  prod:
    url: local
    changeWindows:
      - name: year-end
        reason: holiday freeze, nobody on call
        from: "2026-12-20T00:00:00+01:00"
        until: "2027-01-04T08:00:00+01:00"
      - name: weekend
        reason: no changes at weekends
        weekly: {start: friday 16:00, end: monday 08:00, timeZone: Europe/Berlin}
`;

const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n  secret: ${env:OPENAI_API_KEY:-sk-test-provider}\n';
const agent = (maxTurns: number) =>
  `kind: Agent\nname: support\nspec:\n  model: {provider: openai, model: gpt-4o-mini}\n  system: "You are helpful."\n  tools: []\n  policies: {}\n  limits: {maxTurns: ${maxTurns}}\n`;

interface Plane {
  prod: ControlApiClient;
  env: NodeJS.ProcessEnv;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function startPlane(): Promise<Plane> {
  const plane = await startScratchPlane(['dev', 'prod']);
  cleanups.push(plane.close);
  return { prod: plane.clients.prod as ControlApiClient, env: { ...plane.env, AGENTFORM_ACTOR: '', GITHUB_ACTOR: 'octocat' } };
}

async function project(maxTurns = 5): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'agentform-windows-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'agentform.yaml'), ROOT);
  await writeFile(join(dir, 'openai.yaml'), PROVIDER);
  await writeFile(join(dir, 'support.yaml'), agent(maxTurns));
  return dir;
}

const at = (plane: Plane, now: string): NodeJS.ProcessEnv => ({ ...plane.env, AGENTFORM_NOW: now });
const writes = (stderr: string) => calledRpcs(stderr).filter((rpc) => !READ_RPC.test(rpc));
const liveAgents = async (client: ControlApiClient) => (await client.agentsList()).map((item) => item.slug).sort();

describe('apply inside a change window', () => {
  it('refuses before any write, naming the window, its reason and its end', async () => {
    const plane = await startPlane();
    const dir = await project();
    const apply = await runCli(['apply', dir, '-e', 'prod', '--auto-approve', '--debug'], { env: at(plane, INSIDE) });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'refusing to apply: environment prod is inside change window "year-end" (holiday freeze, nobody on call, agentform.yaml:8:9)',
    );
    expect(apply.stderr).toContain('until 2027-01-04T08:00:00+01:00 (nothing was changed)');
    expect(apply.stderr).toContain('--break-glass');
    expect(writes(apply.stderr)).toEqual([]);
    expect(await liveAgents(plane.prod)).toEqual([]);

    const weekend = await runCli(['apply', dir, '-e', 'prod', '--auto-approve'], { env: at(plane, WEEKEND) });
    expect(weekend.code).toBe(1);
    expect(weekend.stderr).toContain('change window "weekend" (no changes at weekends, agentform.yaml:12:9) until 2026-12-14T08:00+01:00 (Europe/Berlin)');

    // Another environment has no window.
    const dev = await runCli(['apply', dir, '-e', 'dev', '--auto-approve'], { env: at(plane, INSIDE) });
    expect(dev.code, dev.stderr).toBe(0);
  });

  it('lets --break-glass through and records who, why and when in the JSON events', async () => {
    const plane = await startPlane();
    const dir = await project();
    const summary = join(dir, 'step-summary.md');
    const apply = await runCli(['apply', dir, '-e', 'prod', '--auto-approve', '--json', '--break-glass', 'incident 4711: prompt leak'], {
      env: { ...at(plane, INSIDE), GITHUB_STEP_SUMMARY: summary },
    });
    expect(apply.code, apply.stderr).toBe(0);
    const events = apply.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const record = {
      actor: 'octocat',
      reason: 'incident 4711: prompt leak',
      at: '2026-12-24T09:00:00.000Z',
      windows: [{ name: 'year-end', reason: 'holiday freeze, nobody on call', endsAt: '2027-01-04T07:00:00.000Z' }],
    };
    expect(events[0]).toEqual({ type: 'break-glass', ...record });
    expect(events.at(-1)).toMatchObject({ type: 'summary', breakGlass: record });
    expect(await liveAgents(plane.prod)).toEqual(['support']);
    // The CI job's Markdown summary.
    const markdown = await readFile(summary, 'utf8');
    expect(markdown).toContain('### 🔨 Break glass: `apply` to `prod` inside a change window');
    expect(markdown).toContain('| `octocat` | `incident 4711: prompt leak` | 2026-12-24T09:00:00.000Z |');

    // Text: the record is said; AGENTFORM_ACTOR names who, over the CI's user.
    const text = await runCli(['apply', dir, '-e', 'prod', '--auto-approve', '--break-glass', 'again'], {
      env: { ...at(plane, INSIDE), AGENTFORM_ACTOR: 'alice' },
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain('Break glass: alice at 2026-12-24T09:00:00.000Z, through change window "year-end"');
    expect(text.stderr).toContain(': again');

    // Nothing left to change: an apply inside the window writes nothing, so nothing refuses it.
    const clean = await runCli(['apply', dir, '-e', 'prod', '--auto-approve'], { env: at(plane, INSIDE) });
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toContain('No changes.');
  });

  it('refuses an empty --break-glass reason, and notes one outside any window as unused', async () => {
    const plane = await startPlane();
    const dir = await project();
    const empty = await runCli(['apply', dir, '-e', 'prod', '--auto-approve', '--break-glass', ' ', '--debug'], { env: at(plane, INSIDE) });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('--break-glass needs a reason');
    expect(writes(empty.stderr)).toEqual([]);

    const outside = await runCli(['apply', dir, '-e', 'prod', '--auto-approve', '--break-glass', 'just in case'], { env: at(plane, OUTSIDE) });
    expect(outside.code, outside.stderr).toBe(0);
    expect(outside.stderr).toContain('Note: --break-glass not used: no change window of prod is open.');
    expect(await liveAgents(plane.prod)).toEqual(['support']);
  });

  it('refuses a plan saved before the window when applied inside it', async () => {
    const plane = await startPlane();
    const dir = await project();
    const out = join(dir, 'plan.json');
    const plan = await runCli(['plan', dir, '-e', 'prod', '--out', out], { env: at(plane, OUTSIDE) });
    expect(plan.code, plan.stderr).toBe(0);
    const apply = await runCli(['apply', out, '--debug'], { env: at(plane, INSIDE) });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('inside change window "year-end"');
    expect(writes(apply.stderr)).toEqual([]);
    expect(await liveAgents(plane.prod)).toEqual([]);
  });
});

describe('plan inside a change window', () => {
  it('says an apply now would be refused, in text, JSON and Markdown, and exits as usual', async () => {
    const plane = await startPlane();
    const dir = await project();
    const text = await runCli(['plan', dir, '-e', 'prod'], { env: at(plane, INSIDE) });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('An apply to prod now would be refused: a change window is open');
    expect(text.stdout).toContain('"year-end" (holiday freeze, nobody on call, agentform.yaml:8:9) until 2027-01-04T08:00:00+01:00');

    const json = await runCli(['plan', dir, '-e', 'prod', '--json'], { env: at(plane, INSIDE) });
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { openChangeWindows: unknown }).openChangeWindows).toEqual([
      { name: 'year-end', reason: 'holiday freeze, nobody on call', endsAt: '2027-01-04T07:00:00.000Z', location: 'agentform.yaml:8:9' },
    ]);

    const markdown = await runCli(['plan', dir, '-e', 'prod', '--markdown'], { env: at(plane, INSIDE) });
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain('> 🚫 **An apply to prod now would be refused');

    const all = await runCli(['plan', dir, '--all-envs'], { env: at(plane, INSIDE) });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain('An apply to prod now would be refused');
    expect(all.stdout).not.toContain('An apply to dev');

    const outside = await runCli(['plan', dir, '-e', 'prod', '--json'], { env: at(plane, OUTSIDE) });
    expect(JSON.parse(outside.stdout)).not.toHaveProperty('openChangeWindows');
  });
});

describe('promote and rollback inside a change window', () => {
  it('refuse before any write; --break-glass lets promote through', async () => {
    const plane = await startPlane();
    const dir = await project();
    for (const environment of ['dev', 'prod']) {
      const apply = await runCli(['apply', dir, '-e', environment, '--auto-approve'], { env: at(plane, OUTSIDE) });
      expect(apply.code, apply.stderr).toBe(0);
    }
    await writeFile(join(dir, 'support.yaml'), agent(7));
    const second = await runCli(['apply', dir, '-e', 'prod', '--auto-approve'], { env: at(plane, OUTSIDE) });
    expect(second.code, second.stderr).toBe(0);
    const versions = async () => (await latestAgentVersion(plane.prod, 'support'))?.version;
    expect(await versions()).toBe(2);

    const rollback = await runCli(['rollback', 'support', '--to', '1', '-e', 'prod', '-C', dir, '--auto-approve', '--debug'], { env: at(plane, INSIDE) });
    expect(rollback.code).toBe(1);
    expect(rollback.stderr).toContain('refusing to roll back: environment prod is inside change window "year-end"');
    expect(writes(rollback.stderr)).toEqual([]);

    const promote = await runCli(['promote', 'support', '--from', 'dev', '--to', 'prod', '-C', dir, '--auto-approve', '--debug'], { env: at(plane, INSIDE) });
    expect(promote.code).toBe(1);
    expect(promote.stderr).toContain('refusing to promote: environment prod is inside change window "year-end"');
    expect(writes(promote.stderr)).toEqual([]);
    expect(await versions()).toBe(2);

    const glass = await runCli(['promote', 'support', '--from', 'dev', '--to', 'prod', '-C', dir, '--auto-approve', '--break-glass', 'revert to dev'], {
      env: at(plane, INSIDE),
    });
    expect(glass.code, glass.stderr).toBe(0);
    expect(glass.stderr).toContain('Break glass: octocat at 2026-12-24T09:00:00.000Z');
    expect(await versions()).toBe(3);
  });
});
