// The plan is a contract (issue 13, parts 4 and 5), end to end: the real CLI against a real local
// control plane on 127.0.0.1. Lost answers and concurrent runs never leave a wrong state that
// reports success, and nothing is written that cannot be finished.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { startLocalControlPlane, type LocalControlPlane, type LocalControlPlaneOptions } from '../../src/server/embedded.js';
import { READ_RPC, calledRpcs, copyExample, runCli } from '../helpers/cli.js';

interface Plane {
  plane: LocalControlPlane;
  client: ControlApiClient;
  env: NodeJS.ProcessEnv;
  /** Stops this plane and starts another on its data directory (same store, same keys), with these options. */
  restart(options: Partial<LocalControlPlaneOptions>): Promise<Plane>;
  close(): Promise<void>;
}

const opened: Plane[] = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
});

async function startPlane(options: Partial<LocalControlPlaneOptions> = {}, dataDir = mkdtempSync(join(tmpdir(), 'agentform-safety-plane-'))): Promise<Plane> {
  const plane = await startLocalControlPlane({ dataDir, environments: ['dev'], bakeMs: 10, ...options });
  const token = plane.tokens.dev as string;
  const client = new ControlApiClient({ baseUrl: plane.url, credential: { kind: 'key', token } });
  let closed = false;
  const stop = async () => {
    if (closed) return;
    closed = true;
    await client.close();
    await plane.close();
  };
  const item: Plane = {
    plane,
    client,
    env: { AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: token },
    restart: async (next) => {
      await stop();
      return startPlane(next, dataDir);
    },
    close: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  opened.push(item);
  return item;
}

const ROOT = 'version: 1\nenvironments:\n  dev:\n    url: local\n';
const PROVIDER = 'kind: Provider\nname: openai\nspec:\n  type: openai\n  secret: ${env:OPENAI_API_KEY:-sk-test-provider}\n';
const agent = (maxTurns: number, system = 'You are helpful.') =>
  `kind: Agent\nname: bot\nspec:\n  model: {provider: openai, model: gpt-4o-mini}\n  system: ${JSON.stringify(system)}\n  tools: []\n  policies: {}\n  limits: {maxTurns: ${maxTurns}}\n`;
const KEY = 'kind: ApiKey\nname: ci\nspec:\n  scopes: [read]\n  tokenFile: .agentform/ci.token\n';

async function project(files: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'agentform-safety-'));
  for (const [name, text] of Object.entries({ 'agentform.yaml': ROOT, ...files })) await writeFile(join(dir, name), text);
  return dir;
}

async function liveKeys(client: ControlApiClient, name = 'ci') {
  return (await client.apiKeysList()).filter((key) => key.name === name && !key.revokedAt);
}

async function tokenIn(dir: string): Promise<string> {
  return (await readFile(join(dir, '.agentform', 'ci.token'), 'utf8')).trim();
}

const writes = (stderr: string) => calledRpcs(stderr).filter((rpc) => !READ_RPC.test(rpc));

// Every plane here runs the profile of the vitest project (AGENTFORM_SERVER_PROFILE): the suite
// runs against the default server and against the pessimistic one, where every agents.upsert
// makes a version, so a retried upsert would show as an extra version there.
describe('lost answers', () => {
  const options: Partial<LocalControlPlaneOptions> = {};
  it('a lost agents.upsert answer is read back, not sent again: one upsert, no extra version', async () => {
    const dir = await project({ 'resources.yaml': `${PROVIDER}---\n${agent(10)}` });
    const { env, client } = await startPlane({ ...options, faults: { loseFirst: { 'agents.upsert': 1 } } });
    const created = await runCli(['apply', dir, '--auto-approve', '--debug'], { env });
    expect(created.code, created.stdout + created.stderr).toBe(0);
    expect(calledRpcs(created.stderr).filter((rpc) => rpc === 'agents.upsert')).toHaveLength(1);
    expect(created.stderr).toContain('the lost attempt had taken effect');
    expect((await client.agentsGet({ slug: 'bot' })).version).toBe(1);
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout).toBe(0);
  }, 60_000);

  it('a lost agents.upsert answer of an update: one upsert, exactly one new version', async () => {
    const dir = await project({ 'resources.yaml': `${PROVIDER}---\n${agent(10)}` });
    const first = await startPlane(options);
    expect((await runCli(['apply', dir, '--auto-approve'], { env: first.env })).code).toBe(0);
    await writeFile(join(dir, 'resources.yaml'), `${PROVIDER}---\n${agent(20)}`);
    const { env, client } = await first.restart({ ...options, faults: { loseFirst: { 'agents.upsert': 1 } } });
    const updated = await runCli(['apply', dir, '--auto-approve', '--debug'], { env });
    expect(updated.code, updated.stdout + updated.stderr).toBe(0);
    expect(calledRpcs(updated.stderr).filter((rpc) => rpc === 'agents.upsert')).toHaveLength(1);
    expect((await client.agentsGet({ slug: 'bot' })).version).toBe(2);
  }, 60_000);

  it('a lost apiKeys.create answer: the tokenless key is revoked and a new one made in the same run', async () => {
    const dir = await project({ 'keys.yaml': KEY });
    const { env, client } = await startPlane({ ...options, faults: { loseFirst: { 'apiKeys.create': 1 } } });
    const applied = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('the answer carrying its token was lost');
    const keys = await liveKeys(client);
    expect(keys).toHaveLength(1);
    expect((await tokenIn(dir)).startsWith(keys[0]!.prefix as string)).toBe(true);
    expect((await client.apiKeysList()).filter((key) => key.name === 'ci')).toHaveLength(2);
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout).toBe(0);
  }, 60_000);
});

describe('API keys and their token files', () => {
  it('a key whose token file is missing plans as a replace (token file missing), never as "No changes"', async () => {
    const dir = await project({ 'keys.yaml': KEY });
    const { env, client } = await startPlane();
    expect((await runCli(['apply', dir, '--auto-approve'], { env })).code).toBe(0);
    const [first] = await liveKeys(client);
    await rm(join(dir, '.agentform', 'ci.token'));
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('-/+ apiKey/ci (replace)');
    expect(plan.stdout).toContain('# token file missing');
    expect(plan.stdout).not.toContain('No changes');
    const applied = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const keys = await liveKeys(client);
    expect(keys).toHaveLength(1);
    expect(keys[0]!.id).not.toBe(first!.id);
    expect((await tokenIn(dir)).startsWith(keys[0]!.prefix as string)).toBe(true);
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  }, 60_000);

  it('two live keys of one name: the plan revokes the one whose token is not in the token file', async () => {
    const dir = await project({ 'keys.yaml': KEY });
    const { env, client } = await startPlane();
    const older = await client.apiKeysCreate({ key: { name: 'ci', scopes: ['read'] } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A replacement left half done (the local plane allows a second live key of a name only so).
    const newer = await client.call('apiKeys.create', { key: { name: 'ci', scopes: ['read'] } }, { replacesKeyId: older.key.id });
    await mkdir(join(dir, '.agentform'));
    await writeFile(join(dir, '.agentform', 'ci.token'), `${older.token}\n`, { mode: 0o600 });
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain(`- apiKey/ci#${newer.key.id} (destroy)`);
    expect(plan.stdout).toContain('a second live key named ci');
    const applied = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect((await liveKeys(client)).map((key) => key.id)).toEqual([older.key.id]);
    expect(await tokenIn(dir)).toBe(older.token);
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  }, 60_000);

  it('two applies at once leave one live key (the second create is refused, and says why); the next apply converges', async () => {
    const dir = await project({ 'keys.yaml': KEY });
    // Latency makes the two runs' plans and creates overlap.
    const { env, client } = await startPlane({ faults: { latencyMs: 40 } });
    const [a, b] = await Promise.all([runCli(['apply', dir, '--auto-approve'], { env }), runCli(['apply', dir, '--auto-approve'], { env })]);
    const outputs = `${a.stdout}${a.stderr}\n---\n${b.stdout}${b.stderr}`;
    expect(
      [a.code, b.code].every((code) => code === 0 || code === 1),
      outputs,
    ).toBe(true);
    expect(await liveKeys(client), outputs).toHaveLength(1);
    for (const run of [a, b].filter((result) => result.code === 1)) {
      expect(`${run.stdout}${run.stderr}`).toContain('a live key named "ci" already exists');
      expect(`${run.stdout}${run.stderr}`).toContain('another apply probably created this key at the same time');
    }
    const converged = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(converged.code, converged.stdout + converged.stderr).toBe(0);
    const keys = await liveKeys(client);
    expect(keys, outputs).toHaveLength(1);
    expect((await tokenIn(dir)).startsWith(keys[0]!.prefix as string)).toBe(true);
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  }, 90_000);

  it("never overwrites a token file that holds another live key's token", async () => {
    const dir = await project({ 'keys.yaml': KEY });
    const { env, client } = await startPlane();
    const other = await client.apiKeysCreate({ key: { name: 'someone-else', scopes: ['read'] } });
    await mkdir(join(dir, '.agentform'));
    await writeFile(join(dir, '.agentform', 'ci.token'), `${other.token}\n`, { mode: 0o600 });
    const applied = await runCli(['apply', dir, '--auto-approve', '--debug'], { env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("tokenFile .agentform/ci.token holds another key's token");
    expect(writes(applied.stderr)).toEqual([]);
    expect(await tokenIn(dir)).toBe(other.token);
    expect(`${applied.stdout}${applied.stderr}`).not.toContain(other.token);
  }, 60_000);
});

describe('nothing is written that cannot be finished', () => {
  it('plan needs no secret (pull-request job); apply refuses before any write, listing every missing variable', async () => {
    const dir = await copyExample('gitops');
    const { env, client } = await startPlane();
    // No OPENAI_API_KEY, NPM_TOKEN, ...: only where the environment is.
    const validated = await runCli(['validate', dir], { env: {} });
    expect(validated.code, validated.stdout).toBe(0);
    const plan = await runCli(['plan', dir, '-e', 'dev', '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain('+ secret: (write-only)');
    const applied = await runCli(['apply', dir, '-e', 'dev', '--auto-approve', '--debug'], { env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('refusing to apply: 2 problems found before any write (nothing was changed)');
    expect(applied.stderr).toContain('provider/openai: the write-only secret is not available: environment variable OPENAI_API_KEY is not set');
    expect(applied.stderr).toContain('secret/npm-token: the write-only value is not available: environment variable NPM_TOKEN is not set');
    expect(writes(applied.stderr)).toEqual([]);
    expect(await client.providersList()).toEqual([]);
    expect(await client.agentsList()).toEqual([]);
  }, 60_000);

  it('a 5 MB prompt: the plan stays small, and apply refuses before any write instead of failing with 413', async () => {
    const dir = await project({
      'resources.yaml': `${PROVIDER}---\n${agent(10).replace('"You are helpful."', '${file:prompt.md}')}`,
      'prompt.md': 'Be brief.\n'.repeat(500_000),
    });
    const { env, client } = await startPlane();
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout.length).toBeLessThan(40_000);
    expect(plan.stdout).toContain('plan --json shows the whole value');
    const applied = await runCli(['apply', dir, '--auto-approve', '--debug'], { env });
    expect(applied.code).toBe(1);
    expect(applied.stdout.length).toBeLessThan(40_000);
    // 5 MB of text is 5.2 MiB as JSON (each newline is sent as \\n).
    expect(applied.stderr).toMatch(/agent\/bot: the request would be about 5\.2 MiB, over the limit of 1\.0 MiB \(largest field: system, 5\.2 MiB\)/);
    expect(writes(applied.stderr)).toEqual([]);
    expect(await client.providersList()).toEqual([]);
  }, 60_000);

  it('the request limit is configurable: --max-request-bytes, else maxRequestBytes of the environment', async () => {
    const dir = await project({ 'resources.yaml': `${PROVIDER}---\n${agent(10, 'x'.repeat(3000))}` });
    const { env } = await startPlane();
    const flag = await runCli(['apply', dir, '--auto-approve', '--max-request-bytes', '2048'], { env });
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain('over the limit of 2.0 KiB');
    await writeFile(join(dir, 'agentform.yaml'), `${ROOT}    maxRequestBytes: 2048\n`);
    const setting = await runCli(['apply', dir, '--auto-approve'], { env });
    expect(setting.code).toBe(1);
    expect(setting.stderr).toContain('over the limit of 2.0 KiB');
    const raised = await runCli(['apply', dir, '--auto-approve', '--max-request-bytes', '65536'], { env });
    expect(raised.code, raised.stderr).toBe(0);
  }, 60_000);

  it('a read-only key: refused before any write (its scopes are known), not 10 writes and 20 errors', async () => {
    const dir = await project({ 'resources.yaml': `${PROVIDER}---\n${agent(10)}---\nkind: Secret\nname: s\nspec:\n  value: \${env:S:-v}\n` });
    const { env, client } = await startPlane();
    const { token } = await client.apiKeysCreate({ key: { name: 'read-only', scopes: ['read'] } });
    const applied = await runCli(['apply', dir, '--auto-approve', '--debug'], { env: { ...env, AGENTFORM_TOKEN_DEV: token } });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('the API key in use has the scopes read: the 3 change(s) need the control scope');
    expect(writes(applied.stderr)).toEqual([]);
    expect(`${applied.stdout}${applied.stderr}`).not.toContain(token);
  }, 60_000);
});
