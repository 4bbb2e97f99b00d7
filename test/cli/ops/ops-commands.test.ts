// End to end: every operations command, as the built CLI, against the embedded local control plane
// on 127.0.0.1, with the dev session simulator (/dev/sessions/simulate) creating the events,
// pending calls, sandboxes, usage and hook deliveries the commands read. Needs `npx tsc -p .` first.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../../src/api/client.js';
import type { HookDelivery } from '../../../src/model/api.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../../src/server/embedded.js';
import { CLI, runCli, type CliResult } from '../../helpers/cli.js';
import { startEverythingServer, type EverythingServer } from '../../helpers/mcp-everything.js';

const GRANT_SENTINEL = 'SENTINEL-grant-access-token-5d1e';
const BULK_DELIVERIES = 250;

let plane: LocalControlPlane;
let token: string;
let client: ControlApiClient;
let everything: EverythingServer;
let receiver: Server;
let receiverStatus = 500;
let sessionId: string;
let cappedToken: string;
let env: NodeJS.ProcessEnv;

async function dev<T>(path: string, body: unknown, bearer = token): Promise<T> {
  const response = await fetch(`${plane.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const deliveries = () => dev<HookDelivery[]>('/dev/hooks/deliveries', {});

function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}, cwd?: string): Promise<CliResult> {
  return runCli(args, { env: { ...env, ...extraEnv }, ...(cwd ? { cwd } : {}) });
}

/** No credential of the run may reach the output (keys create --show-token is the one exception, tested apart). */
function expectNoSecrets(result: CliResult): void {
  for (const text of [result.stdout, result.stderr]) {
    expect(text).not.toContain(token);
    expect(text).not.toContain(cappedToken);
    expect(text).not.toContain(GRANT_SENTINEL);
    expect(text).not.toMatch(/svc_[a-z0-9-]+_[A-Za-z0-9]{16,}/);
  }
}

beforeAll(async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'agentform-ops-'));
  plane = await startLocalControlPlane({
    dataDir,
    environments: ['dev', 'prod'],
    hookRetry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    devEndpoints: true,
  });
  token = plane.tokens.dev as string;
  env = { AGENTFORM_URL: plane.url, AGENTFORM_TOKEN: token };
  client = new ControlApiClient({ baseUrl: plane.url, credential: { kind: 'key', token } });

  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(receiverStatus);
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hooksUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  everything = await startEverythingServer();

  await client.call('providers.create', { name: 'openai', type: 'openai' });
  await client.call('connections.create', { name: 'tools', auth: { type: 'svc-signed' }, url: everything.url });
  const sink = await client.call('connections.create', { name: 'sink', auth: { type: 'svc-signed' }, hooksUrl, hookEvents: ['hook.test'] });
  await client.call('agents.upsert', {
    slug: 'support',
    definition: {
      name: 'support',
      model: { provider: 'openai', model: 'gpt-4o' },
      system: 'Be brief.',
      tools: [{ type: 'builtin', name: 'current_time' }],
      policies: { toolCalls: { hook: { connection: 'tools' } } },
      limits: {},
    },
  });
  await client.call('connections.grants.import', {
    connectionId: sink.id,
    mode: 'skip_existing',
    grants: [{ identity: { scope: 'user', id: 'ada' }, accessToken: GRANT_SENTINEL }],
  });
  const capped = await client.call('apiKeys.create', { key: { name: 'capped', scopes: ['read', 'control'], spend: { tokensPerMonth: 1000 } } });
  cappedToken = capped.token;

  const session = await dev<{ sessionId: string }>('/dev/sessions/simulate', {
    agent: 'support',
    identity: { scope: 'user', id: 'ada' },
    events: ['session.started', 'tool.called', 'tool.called', 'session.completed'],
    pending: 2,
    sandboxes: 1,
    usage: { inputTokens: 40, outputTokens: 10, turns: 2, modelCalls: 3, toolCalls: 1, costUsd: 0.25, activeSeconds: 90 },
  });
  sessionId = session.sessionId;
  // Usage recorded against the capped key: 850 of its 1000 tokens a month.
  await dev('/dev/sessions/simulate', { agent: 'support', events: [], usage: { inputTokens: 800, outputTokens: 50, turns: 5, modelCalls: 5 } }, cappedToken);
  // Deliveries that fail once (receiver answers 500) are dead at once (maxAttempts 1).
  await dev('/dev/sessions/simulate', { agent: 'support', events: Array.from({ length: BULK_DELIVERIES }, () => 'hook.test') });
  await waitFor('every bulk delivery to be dead', async () => (await deliveries()).filter((d) => d.status === 'dead').length === BULK_DELIVERIES);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await everything?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await plane?.close();
});

describe('sessions', () => {
  it('events: a table of seq, time, type, agent version and identity', async () => {
    const result = await cli(['sessions', 'events', sessionId]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SEQ\s+TIME\s+TYPE\s+AGENT VERSION\s+IDENTITY$/);
    expect(lines.slice(1).map((line) => line.trim().split(/\s+/))).toEqual([
      ['1', expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), 'session.started', 'v1', 'user:ada'],
      ['2', expect.any(String), 'tool.called', 'v1', 'user:ada'],
      ['3', expect.any(String), 'tool.called', 'v1', 'user:ada'],
      ['4', expect.any(String), 'session.completed', 'v1', 'user:ada'],
    ]);
    expectNoSecrets(result);
  });

  it('events --type filters, --json gives the API objects', async () => {
    const result = await cli(['sessions', 'events', sessionId, '--type', 'session.*', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const events = JSON.parse(result.stdout) as Array<{ seq: number; type: string; sessionId: string }>;
    expect(events.map((event) => [event.seq, event.type])).toEqual([
      [1, 'session.started'],
      [4, 'session.completed'],
    ]);
    expect(events[0]?.sessionId).toBe(sessionId);
  });

  it('events --follow polls until interrupted and prints each event once', async () => {
    const child = spawn(process.execPath, [CLI, 'sessions', 'events', sessionId, '--follow', '--interval', '0.1', '--type', 'tool.called'], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor('the first events', async () => stdout.split('\n').length > 2);
    await new Promise((resolve) => setTimeout(resolve, 600)); // several more polls
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([expect.stringMatching(/^#2 {2}\S+ {2}tool\.called {2}v1 {2}user:ada$/), expect.stringMatching(/^#3 /)]);
    expect(stderr).toBe(''); // not a terminal: no "Following ..." chatter
  });

  it('pending: tool, connection, who asked, expires in', async () => {
    const result = await cli(['sessions', 'pending', sessionId]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TOOL CALL\s+TOOL\s+CONNECTION\s+REQUESTED BY\s+REQUESTED\s+EXPIRES$/);
    expect(lines).toHaveLength(3);
    for (const line of lines.slice(1)) expect(line).toMatch(/^call_\S+\s+current_time\s+tools\s+hook\s+\S+\s+in \d+m( \d+s)?$/);
  });

  it('an unknown session is an API error naming the operation, code and message', async () => {
    const result = await cli(['sessions', 'pending', 'ses_nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: sessions\.pending: not_found \(HTTP 404\): .+/);
    expect(result.stderr).not.toContain('    at ');
  });
});

describe('hooks redeliver', () => {
  it('--all with a bound: stops after --max-calls and says so, with the count so far', async () => {
    receiverStatus = 200; // from now on a requeued delivery is delivered, not dead again
    const result = await cli(['hooks', 'redeliver', '--all', '--max-calls', '1']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('Requeued 100 deliveries in 1 call. More remain.\n');
    expect(result.stderr).toContain('stopped after 1 hooks.redeliverAll calls while the server still reports more');
  });

  it('--all calls again while more is true and prints the total', async () => {
    const result = await cli(['hooks', 'redeliver', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ requeued: BULK_DELIVERIES - 100, calls: 2, more: false });
    expect(result.stderr).toBe(''); // no progress line outside a terminal
    await waitFor(
      'the requeued deliveries to be delivered',
      async () => (await deliveries()).filter((d) => d.status === 'delivered').length === BULK_DELIVERIES,
    );
  });

  it('one delivery by id', async () => {
    const [first] = await deliveries();
    const result = await cli(['hooks', 'redeliver', first!.id]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Requeued delivery ${first!.id}.`);
    expect(result.stdout).toMatch(/Connection:\s+sink \(con_/);
    expect(result.stdout).toMatch(/Event:\s+#1 hook\.test/);
  });

  it('refuses an id together with --all, and neither', async () => {
    expect((await cli(['hooks', 'redeliver', 'x', '--all'])).stderr).toContain('give a delivery id or --all, not both');
    expect((await cli(['hooks', 'redeliver'])).stderr).toContain('which delivery?');
  });
});

describe('usage', () => {
  /**
   * The caps a key really has: the server may fill caps nobody set (local-dev is made by the
   * server, and a cap left out of a request is the server's choice). `-` = no cap.
   */
  async function capsOf(name: string): Promise<{ tokensPerMonth?: number; agentMinutesPerMonth?: number; dailyUsd?: number }> {
    const keys = await client.call('apiKeys.list', {});
    return keys.find((key) => key.name === name && !key.revokedAt)?.spend ?? {};
  }
  const capCell = (cap: number | undefined, shown = '\\S+'): string => (cap === undefined ? '-' : shown);

  it('one row per key; the key over 80 % of a cap is highlighted', async () => {
    const result = await cli(['usage', '--from', '7d']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage from \S+ to \S+\n/);
    const own = await capsOf('local-dev');
    const ownCaps = [own.tokensPerMonth, own.agentMinutesPerMonth, own.dailyUsd].map((cap) => capCell(cap)).join('\\s+');
    expect(result.stdout).toMatch(new RegExp(`^local-dev\\s+svc_dev_\\w+\\s+50\\s+2\\s+3\\s+1\\s+2\\s+\\$0\\.25\\s+${ownCaps}$`, 'm'));
    const capped = await capsOf('capped');
    const otherCaps = [capped.agentMinutesPerMonth, capped.dailyUsd].map((cap) => capCell(cap, '0%')).join('\\s+');
    expect(result.stdout).toMatch(new RegExp(`^capped\\s+svc_dev_\\w+\\s+850\\s+5\\s+5\\s+0\\s+0\\s+\\$0\\.00\\s+85%!\\s+${otherCaps}$`, 'm'));
    expect(result.stdout).toContain('! 1 key is at or over 80 % of a spend cap.');
    expectNoSecrets(result);
  });

  it('--csv and --json carry the same numbers', async () => {
    const csv = await cli(['usage', '--from', 'this-month', '--csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...rows] = csv.stdout.trim().split('\r\n');
    expect(header?.split(',')).toContain('tokensShare');
    // Columns: the three caps, then the three shares; a cap the key does not have is empty.
    const capped = await capsOf('capped');
    const [minutes, daily] = [capped.agentMinutesPerMonth, capped.dailyUsd].map((cap) => (cap === undefined ? '' : String(cap)));
    const [minutesShare, dailyShare] = [capped.agentMinutesPerMonth, capped.dailyUsd].map((cap) => (cap === undefined ? '' : '0'));
    expect(rows.find((row) => row.includes(',capped,'))).toMatch(new RegExp(`,1000,${minutes},${daily},0\\.85,${minutesShare},${dailyShare},true$`));

    const json = await cli(['usage', '--json', '--from', new Date(Date.now() - 3600_000).toISOString()]);
    const parsed = JSON.parse(json.stdout) as {
      period: { from: string; to: string };
      keys: Array<{ name: string; shares: { tokens: number | null }; nearCap: boolean }>;
    };
    expect(parsed.keys.find((key) => key.name === 'capped')).toMatchObject({ shares: { tokens: 0.85 }, nearCap: true });
  });

  it('a bad period is refused before any request, with the accepted forms', async () => {
    const result = await cli(['usage', '--from', 'yesterday', '--debug']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--from "yesterday" is not a time: expected a date (2026-05-01), an RFC 3339 time');
    expect(result.stderr).not.toContain('→ POST');
  });

  it('a period in the future is empty', async () => {
    const result = await cli(['usage', '--from', '2999-01-01']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the period is empty');
  });
});

describe('sandboxes, connections, providers, org, env', () => {
  it('sandboxes: state, provider, owner session, idle since, snapshot count', async () => {
    const result = await cli(['sandboxes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^SANDBOX\s+STATE\s+PROVIDER\s+OWNER SESSION\s+IDLE SINCE\s+SNAPSHOTS$/m);
    expect(result.stdout).toMatch(new RegExp(`^sbx_\\w+\\s+provisioning\\s+local\\s+${sessionId}\\s+-\\s+0$`, 'm'));
  });

  it('connections test NAME: the tools of the MCP server with their annotations', async () => {
    const result = await cli(['connections', 'test', 'tools']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Connection tools answered with \d+ tools\.$/m);
    expect(result.stdout).toMatch(/^TOOL\s+TITLE\s+ANNOTATIONS\s+DESCRIPTION$/m);
    expect(result.stdout).toMatch(/^echo\s/m);
    expect(result.stdout).toMatch(/read-only|destructive|idempotent|open-world/);
  });

  it('connections test with an unknown name lists the names there are', async () => {
    const result = await cli(['connections', 'test', 'tool']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: no connection named tool in this environment');
    expect(result.stderr).toContain('the environment has: sink, tools');
  });

  it('connections grants: identity and status, never the token', async () => {
    const result = await cli(['connections', 'grants', '--connection', 'sink']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^GRANT\s+CONNECTION\s+IDENTITY\s+STATUS/m);
    expect(result.stdout).toMatch(/sink\s+user:ada/);
    expect((await cli(['connections', 'grants', '--connection', 'tools'])).stdout).toBe('No grants.\n');
    const json = await cli(['connections', 'grants', '--json']);
    expectNoSecrets(result);
    expectNoSecrets(json);
  });

  it('providers models NAME', async () => {
    const result = await cli(['providers', 'models', 'openai']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Provider openai offers \d+ models\./);
    expect(result.stdout).toMatch(/^gpt-4o\s+openai\s+128,000\s+16,384$/m);
  });

  it('org and env get', async () => {
    const org = await cli(['org', '--json']);
    expect(JSON.parse(org.stdout)).toMatchObject({ slug: 'local' });
    const environment = await cli(['env', 'get', 'prod']);
    expect(environment.code, environment.stderr).toBe(0);
    expect(environment.stdout).toMatch(/^Environment:\s+prod$/m);
    expect(environment.stdout).toMatch(/^Session events kept:\s+\d+ days$/m);
  });
});

describe('keys and secrets', () => {
  it('keys create --token-file: the token only in a new 0600 file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentform-keys-'));
    const file = join(dir, 'ci.token');
    const result = await cli(['keys', 'create', 'ci', '--scopes', 'read,control', '--expires', '30d', '--token-file', file, '--debug']);
    expect(result.stderr).toContain('apiKeys.create'); // the trace is there, the token is not
    expect(result.code, result.stderr).toBe(0);
    const written = (await readFile(file, 'utf8')).trim();
    expect(written).toMatch(/^svc_dev_[A-Za-z0-9]+$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(result.stdout).toContain('Created API key ci.');
    expect(result.stdout).toMatch(/^Scopes:\s+read, control$/m);
    expect(result.stdout).not.toContain(written);
    expect(result.stderr).not.toContain(written);
    // The new key works.
    const org = await cli(['org'], { AGENTFORM_TOKEN: written });
    expect(org.code, org.stderr).toBe(0);
    // An existing file is never overwritten, and nothing is created.
    const again = await cli(['keys', 'create', 'ci2', '--scopes', 'read', '--token-file', file]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    expect((await client.call('apiKeys.list', {})).some((key) => key.name === 'ci2')).toBe(false);
  });

  it('keys create with nowhere for the token refuses before creating anything', async () => {
    const result = await cli(['keys', 'create', 'lost', '--scopes', 'read']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('where should the token go?');
    expect((await client.call('apiKeys.list', {})).some((key) => key.name === 'lost')).toBe(false);
    expect((await cli(['keys', 'create', 'bad', '--scopes', 'read,admin', '--show-token'])).stderr).toContain('unknown scope admin');
  });

  it('keys create --show-token prints it, once, on its own line; keys revoke revokes', async () => {
    const result = await cli(['keys', 'create', 'shown', '--scopes', 'read', '--show-token']);
    expect(result.code, result.stderr).toBe(0);
    const tokens = result.stdout.match(/svc_dev_[A-Za-z0-9]{16,}/g) ?? [];
    expect(tokens).toHaveLength(1);
    expect(result.stdout.trim().split('\n').at(-1)).toBe(tokens[0]);
    const key = (await client.call('apiKeys.list', {})).find((item) => item.name === 'shown');
    const revoke = await cli(['keys', 'revoke', key!.id]);
    expect(revoke.code, revoke.stderr).toBe(0);
    expect(revoke.stdout).toMatch(/^Revoked:\s+\S+$/m);
    const denied = await cli(['org'], { AGENTFORM_TOKEN: tokens[0] });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/^Error: organizations\.get: unauthenticated \(HTTP 401\)/);
    expect(denied.stderr).not.toContain(tokens[0]);
  });

  it('secrets delete ID', async () => {
    const secret = await client.call('secrets.create', { name: 'old', value: 'SENTINEL-secret-value' });
    const result = await cli(['secrets', 'delete', secret.id]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`Deleted secret ${secret.id}.\n`);
    expect((await client.call('secrets.list', {})).map((item) => item.id)).not.toContain(secret.id);
  });

  it('secrets delete NAME looks the id up; an unknown name deletes nothing and suggests', async () => {
    const secret = await client.call('secrets.create', { name: 'stale-webhook', value: 'SENTINEL-secret-value' });
    const unknown = await cli(['secrets', 'delete', 'stale-webhok']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no secret named stale-webhok; did you mean "stale-webhook"?');
    expect((await client.call('secrets.list', {})).map((item) => item.id)).toContain(secret.id);
    const result = await cli(['secrets', 'delete', 'stale-webhook', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ deleted: secret.id, name: 'stale-webhook' });
    expect((await client.call('secrets.list', {})).map((item) => item.id)).not.toContain(secret.id);
  });

  it('keys revoke NAME revokes the live key of that name, never a revoked one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentform-keys-'));
    const created = await cli(['keys', 'create', 'rotating', '--scopes', 'read', '--token-file', join(dir, 'first.token')]);
    expect(created.code, created.stderr).toBe(0);
    // The local plane keeps one live key per name, so a second plain create is refused, saying why.
    const again = await cli(['keys', 'create', 'rotating', '--scopes', 'read', '--token-file', join(dir, 'second.token')]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('a live key named "rotating" already exists');
    // Two live keys of a name: a replacement under way (or a server without that rule).
    const [live] = (await client.call('apiKeys.list', {})).filter((key) => key.name === 'rotating');
    await client.call('apiKeys.create', { key: { name: 'rotating', scopes: ['read'] } }, { replacesKeyId: live!.id });
    const ambiguous = await cli(['keys', 'revoke', 'rotating']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(/2 API keys are named rotating: key_\S+, key_\S+/);
    const [first] = (await client.call('apiKeys.list', {})).filter((key) => key.name === 'rotating');
    expect((await cli(['keys', 'revoke', first!.id])).code).toBe(0);
    // One live key of that name is left: the name now means it.
    const byName = await cli(['keys', 'revoke', 'rotating']);
    expect(byName.code, byName.stderr).toBe(0);
    const keys = (await client.call('apiKeys.list', {})).filter((key) => key.name === 'rotating');
    expect(keys.every((key) => key.revokedAt)).toBe(true);
    const none = await cli(['keys', 'revoke', 'rotating']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no API key named rotating');
  });
});

describe('the connection comes from the project when there is one', () => {
  async function project(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'agentform-ops-project-'));
    await writeFile(
      join(dir, 'agentform.yaml'),
      [
        'version: 1',
        'environments:',
        '  dev:',
        `    url: ${plane.url}`,
        '    token: ${env:DEV_TOKEN}',
        '  prod:',
        `    url: ${plane.url}`,
        '    token: ${env:PROD_TOKEN}',
        'defaultEnvironment: dev',
        '',
      ].join('\n'),
    );
    // A resource whose ${env:} is unset must not stop an operations command.
    await writeFile(
      join(dir, 'providers.yaml'),
      ['kind: Provider', 'name: openai', 'spec:', '  type: openai', '  secret: ${env:UNSET_PROVIDER_KEY}', ''].join('\n'),
    );
    return dir;
  }

  it('-e picks the environment; its url and token come from agentform.yaml (via --dir)', async () => {
    const dir = await project();
    const bare = { AGENTFORM_URL: '', AGENTFORM_TOKEN: '' };
    const prod = await cli(['sandboxes', '--dir', dir, '-e', 'prod'], { ...bare, PROD_TOKEN: plane.tokens.prod });
    expect(prod.code, prod.stderr).toBe(0);
    expect(prod.stdout).toBe('No sandboxes.\n');
    const dev = await cli(['sandboxes'], { ...bare, DEV_TOKEN: token }, dir);
    expect(dev.stdout).toContain(sessionId);
  });

  it('url: local starts the local control plane of the project', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentform-ops-local-'));
    await writeFile(join(dir, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev:\n    url: local\n');
    const result = await cli(['sandboxes'], { AGENTFORM_URL: '', AGENTFORM_TOKEN: '' }, dir);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('Using the local control plane (.agentform/local)\n');
    expect(result.stdout).toBe('No sandboxes.\n');
    expect((await stat(join(dir, '.agentform', 'local'))).isDirectory()).toBe(true);
  });

  it('a key for another environment is refused before it is sent', async () => {
    const dir = await project();
    const result = await cli(['sandboxes', '-e', 'prod', '--dir', dir, '--debug'], { PROD_TOKEN: token });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is for environment dev, not prod');
    expect(result.stderr).not.toContain('→ POST');
    expectNoSecrets(result);
  });
});
