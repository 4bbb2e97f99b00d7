// Plan with a read-only key, apply with a control key (issue 43, item 1): the CI loop. Which key
// reads the environment must not change what the plan sees, so a saved plan made with one key
// applies with the other when nothing changed, for every resource kind, and is refused with the
// reason when something did. The key a run authenticates with is never revoked by that run.
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { READ_RPC, calledRpcs, runCli } from '../helpers/cli.js';

const ROOT = (organization: string, environmentName: string, pruneApiKeys = false) => `version: 1
organization:
  name: ${organization}
environments:
  dev:
    url: http://127.0.0.1:1
    token: \${env:AGENTFORM_TOKEN_DEV}
    prune: true
${pruneApiKeys ? '    pruneApiKeys: true\n' : ''}    settings:
      name: ${environmentName}
      spend: {dailyUsd: 25}
`;

/**
 * One resource of every kind the project declares (organization and environment are in ROOT).
 * From round 2 on, the write-only values are marked rotated now, so that they are sent again.
 */
const RESOURCES = (round: number, rotatedAt = round > 1 ? new Date().toISOString() : '2000-01-01') => `kind: Secret
name: build-token
spec:
  value: \${env:READ_KEY_SECRET:-s}
  rotatedAt: ${rotatedAt}
---
kind: Provider
name: openai
spec:
  type: openai
  baseUrl: https://llm${round}.example.com/v1
  secret: \${env:READ_KEY_PROVIDER:-p}
---
kind: Connection
name: crm
spec:
  url: http://127.0.0.1:9/mcp${round}
  transport: streamable-http
  auth:
    type: svc-signed
  grants:
    - identity: {scope: team, id: support}
      accessToken: \${env:READ_KEY_GRANT:-g}
      rotatedAt: ${rotatedAt}
---
kind: Agent
name: bot
spec:
  model: {provider: openai, model: gpt-4o-mini}
  system: Round ${round}.
  tools: []
  policies: {toolCalls: {default: deny}}
  limits: {maxTurns: ${10 + round}}
---
kind: ApiKey
name: dashboard
spec:
  scopes: [read]
  spend: {dailyUsd: ${round}}
  tokenFile: .agentform/dashboard.token
`;

let plane: LocalControlPlane;
let admin: ControlApiClient;
let dataDir: string;
const keys: { read: string; control: string } = { read: '', control: '' };

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'agentform-read-key-plane-'));
  plane = await startLocalControlPlane({ dataDir, environments: ['dev'], bakeMs: 10 });
  admin = new ControlApiClient({ baseUrl: plane.url, credential: { kind: 'key', token: plane.tokens.dev as string } });
  keys.read = (await admin.apiKeysCreate({ key: { name: 'ci-read', scopes: ['read'] } })).token;
  keys.control = (await admin.apiKeysCreate({ key: { name: 'ci-control', scopes: ['read', 'control'] } })).token;
});

afterAll(async () => {
  await admin.close();
  await plane.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const envFor = (token: string) => ({ AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: token });
const writes = (stderr: string) => calledRpcs(stderr).filter((rpc) => !READ_RPC.test(rpc));
const liveKeyNames = async () =>
  (await admin.apiKeysList())
    .filter((key) => !key.revokedAt)
    .map((key) => key.name)
    .sort();

async function project(root: string, resources: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'agentform-read-key-'));
  await writeFile(join(dir, 'agentform.yaml'), root);
  await writeFile(join(dir, 'resources.yaml'), resources);
  return dir;
}

/** `plan --out` with the read key, then `apply` of that file with the control key. */
async function planThenApply(dir: string) {
  const planned = await runCli(['plan', dir, '--out', join(dir, 'plan.json'), '--detailed-exitcode'], { env: envFor(keys.read) });
  const applied = await runCli(['apply', join(dir, 'plan.json'), '--debug'], { env: envFor(keys.control) });
  return { planned, applied };
}

describe('a plan saved with a read key, applied with a control key', () => {
  it('applies for every kind when nothing changed in between, keeps both CI keys under prune, then converges', async () => {
    const dir = await project(ROOT('Read Key Co', 'Dev'), RESOURCES(1));
    const first = await planThenApply(dir);
    expect(first.planned.code, first.planned.stderr).toBe(2);
    expect(first.applied.code, first.applied.stderr).toBe(0);
    // Nothing of the CI's own keys is planned: listed as left alone, never revoked.
    expect(first.planned.stdout).toMatch(/\? apiKey\/ci-control \(API keys are revoked only with pruneApiKeys: true\)/);
    expect(first.planned.stdout).toMatch(/\? apiKey\/ci-read /);
    expect(writes(first.applied.stderr)).not.toContain('apiKeys.revoke');

    // A change of every kind, planned with the read key and applied with the control key.
    await writeFile(join(dir, 'agentform.yaml'), ROOT('Read Key Company', 'Development'));
    await writeFile(join(dir, 'resources.yaml'), RESOURCES(2));
    const second = await planThenApply(dir);
    expect(second.planned.code, second.planned.stderr).toBe(2);
    for (const address of ['organization/', 'environment/dev', 'secret/build-token', 'provider/openai', 'connection/crm', 'agent/bot', 'apiKey/dashboard']) {
      expect(second.planned.stdout, address).toContain(address);
    }
    expect(second.applied.code, second.applied.stderr).toBe(0);
    expect(writes(second.applied.stderr)).toEqual(
      expect.arrayContaining([
        'organizations.update',
        'environments.update',
        'secrets.update',
        'providers.update',
        'connections.update',
        'connections.grants.import',
        'agents.upsert',
        'apiKeys.create',
      ]),
    );

    // Converged, whichever key looks.
    for (const token of [keys.read, keys.control]) {
      const again = await runCli(['plan', dir, '--detailed-exitcode'], { env: envFor(token) });
      expect(again.code, again.stdout + again.stderr).toBe(0);
    }
    expect(await liveKeyNames()).toEqual(['ci-control', 'ci-read', 'dashboard', 'local-dev']);
  }, 120_000);

  it('is refused, naming what changed, when the environment changed after the plan', async () => {
    const dir = await project(ROOT('Read Key Co', 'Dev'), RESOURCES(3));
    const planned = await runCli(['plan', dir, '--out', join(dir, 'plan.json')], { env: envFor(keys.read) });
    expect(planned.code, planned.stderr).toBe(0);
    // Out of band, after the review: someone adds a provider.
    await admin.providersCreate({ name: 'out-of-band', type: 'openai' });
    const applied = await runCli(['apply', join(dir, 'plan.json'), '--debug'], { env: envFor(keys.control) });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('the saved plan is stale');
    expect(applied.stderr).toContain('provider/out-of-band: the remote object appeared since the plan was saved');
    expect(applied.stderr).not.toMatch(/apiKey\/ci-(read|control)/);
    expect(writes(applied.stderr)).toEqual([]);
  }, 60_000);
});

describe('pruneApiKeys: the key a run authenticates with is never revoked by that run', () => {
  it('plan warns, apply refuses before any write, when the configuration would revoke it', async () => {
    const dir = await project(ROOT('Read Key Co', 'Dev', true), RESOURCES(4));
    const planned = await runCli(['plan', dir, '--out', join(dir, 'plan.json')], { env: envFor(keys.read) });
    expect(planned.code, planned.stderr).toBe(0);
    // The same view whatever the key: both CI keys are to be revoked, and the reader is told.
    expect(planned.stdout).toContain('- apiKey/ci-control');
    expect(planned.stdout).toContain('- apiKey/ci-read');
    expect(planned.stdout).toContain(
      "apiKey/ci-read is the key this run authenticates with: deleting it would revoke the run's own credential halfway through: apply with this key would refuse",
    );
    const applied = await runCli(['apply', join(dir, 'plan.json'), '--debug'], { env: envFor(keys.control) });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      "apiKey/ci-control is the key this run authenticates with: deleting it would revoke the run's own credential halfway through; apply with another control key",
    );
    expect(writes(applied.stderr)).toEqual([]);
    expect(await liveKeyNames()).toEqual(expect.arrayContaining(['ci-control', 'ci-read']));
  }, 60_000);
});
