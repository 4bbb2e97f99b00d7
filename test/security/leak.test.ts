// Secrets never leak (issue 9): every write-only value gets a unique sentinel, every command and
// output mode runs (and again with --debug) against the real local control plane, and no sentinel
// may appear in stdout, stderr or any file below the project or the working directory, except the
// token files the user asked for (mode 0600).
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { REPO, runCli, withoutLocalState, type CliResult } from '../helpers/cli.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { keySecret, scanFiles, scanOutputs, type Leak, type Sentinel } from './leak-scan.js';

const FIXTURE = join(REPO, 'test', 'fixtures', 'leak');
const sentinelValue = (label: string): string => `leak-${label}-${randomBytes(12).toString('hex')}`;

interface Case {
  name: string;
  args: string[];
  /** 'outside': a directory with no project, authenticated by the session cookie. */
  where?: 'project' | 'outside';
  /** Expected exit code (a command that fails early would make the scan vacuous). Default 0. */
  code?: number;
  /** Whether the command reads the project (else it is told the URL and key by AGENTFORM_URL/TOKEN). */
  global?: boolean;
}

// Each test runs dozens of CLI processes: give them room on a loaded machine.
describe('secrets never leak', { timeout: 240_000 }, () => {
  let plane: LocalControlPlane;
  let dataDir: string;
  let project: string;
  let outside: string;
  let cookie: string;
  const sentinels: Sentinel[] = [];
  const tokenFiles = new Set<string>();
  const env: Record<string, string> = {};

  /** Runs the CLI, then scans its output and every file it could have written. */
  async function runScanned(c: Case): Promise<CliResult> {
    const cwd = c.where === 'outside' ? outside : project;
    const extra: Record<string, string> =
      c.where === 'outside'
        ? { AGENTFORM_URL: plane.url, AGENTFORM_COOKIE: cookie, AGENTFORM_ORGANIZATION: 'local', AGENTFORM_ENVIRONMENT: 'dev' }
        : c.global
          ? { AGENTFORM_URL: plane.url, AGENTFORM_TOKEN: plane.tokens.dev! }
          : {};
    const result = await runCli(c.args, { cwd, env: { ...env, ...extra } });
    collectTokenFiles();
    const leaks: Leak[] = [...scanOutputs(result, sentinels), ...scanFiles([project, outside], sentinels, tokenFiles)];
    expect(leaks, `${c.name}: ${c.args.join(' ')}`).toEqual([]);
    expect(result.code, `${c.name}: exit code\n${result.stdout}\n${result.stderr}`).toBe(c.code ?? 0);
    return result;
  }

  /** Each token file the user asked for: its token becomes a sentinel everywhere else. */
  function collectTokenFiles(): void {
    for (const file of [join(project, '.agentform', 'ci.token'), join(project, 'new.token'), join(outside, 'cookie.token')]) {
      if (!existsSync(file) || tokenFiles.has(file)) continue;
      tokenFiles.add(file);
      const token = readFileSync(file, 'utf8').trim();
      expect(token).toMatch(/^svc_/);
      sentinels.push({ label: `created API key token (${file})`, value: keySecret(token) });
    }
  }

  /** Each case as given, then with --debug (which traces every request and response). */
  const withDebug = (cases: Case[]): Case[] => cases.flatMap((c) => [c, { ...c, name: `${c.name} --debug`, args: [...c.args, '--debug'] }]);

  async function runAll(cases: Case[], parallel = 3): Promise<CliResult[]> {
    const results: CliResult[] = [];
    for (let i = 0; i < cases.length; i += parallel) results.push(...(await Promise.all(cases.slice(i, i + parallel).map(runScanned))));
    return results;
  }

  async function rpc<T>(name: string, body: unknown, token: string): Promise<T> {
    const response = await fetch(`${plane.url}/v1/${name.split('.').join('/')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status, name).toBeLessThan(300);
    return (await response.json()) as T;
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agentform-leak-data-'));
    project = mkdtempSync(join(tmpdir(), 'agentform-leak-project-'));
    outside = mkdtempSync(join(tmpdir(), 'agentform-leak-cwd-'));
    cpSync(FIXTURE, project, { recursive: true, filter: withoutLocalState });
    plane = await startLocalControlPlane({ dataDir, environments: ['dev', 'prod'], bakeMs: 20, devEndpoints: true });
    const minted = (await (
      await fetch(`${plane.url}/dev/cookie`, {
        method: 'POST',
        headers: { authorization: `Bearer ${plane.tokens.dev}`, 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { cookie: string };
    cookie = minted.cookie;
    Object.assign(env, {
      AGENTFORM_URL_DEV: plane.url,
      AGENTFORM_URL_PROD: plane.url,
      LEAK_TOKEN_DEV: plane.tokens.dev!,
      LEAK_TOKEN_PROD: plane.tokens.prod!,
      LEAK_PROVIDER_SECRET: sentinelValue('provider-secret'),
      LEAK_SECRET_VALUE: sentinelValue('secret-value'),
      LEAK_GRANT_TOKEN: sentinelValue('grant-token'),
      LEAK_AUTH_SIGNING_KEY: sentinelValue('auth-signing-key'),
      LEAK_AUTH_CLIENT_SECRET: sentinelValue('auth-client-secret'),
    });
    sentinels.push(
      { label: 'CLI API key (dev)', value: keySecret(env.LEAK_TOKEN_DEV!) },
      { label: 'CLI API key (prod)', value: keySecret(env.LEAK_TOKEN_PROD!) },
      { label: 'provider secret', value: env.LEAK_PROVIDER_SECRET! },
      { label: 'secret value', value: env.LEAK_SECRET_VALUE! },
      { label: 'grant access token', value: env.LEAK_GRANT_TOKEN! },
      { label: 'connection auth field', value: env.LEAK_AUTH_SIGNING_KEY! },
      { label: 'connection auth field with a rotation marker', value: env.LEAK_AUTH_CLIENT_SECRET! },
      { label: 'session cookie', value: cookie.slice(cookie.indexOf('=') + 1) },
    );
  });

  afterAll(async () => {
    await plane?.close();
    for (const dir of [dataDir, project, outside]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('validate, plan in every format, apply (saved plan, text, --json), each with --debug', async () => {
    await runAll(
      withDebug([
        { name: 'validate', args: ['validate'] },
        { name: 'validate --json', args: ['validate', '--json'] },
        { name: 'plan', args: ['plan'] },
        { name: 'plan --json', args: ['plan', '--json'] },
        { name: 'plan --markdown', args: ['plan', '--markdown'] },
        { name: 'plan --all-envs', args: ['plan', '--all-envs'] },
        { name: 'plan --all-envs --json', args: ['plan', '--all-envs', '--json'] },
        { name: 'plan -e prod --markdown --out', args: ['plan', '-e', 'prod', '--markdown', '--out', 'plan-prod.json'] },
      ]),
    );
    await runScanned({ name: 'plan --out', args: ['plan', '--out', 'plan.json', '--debug'] });
    const applied = await runScanned({ name: 'apply saved plan --debug', args: ['apply', 'plan.json', '--auto-approve', '--debug'] });
    expect(applied.stderr).toContain('/v1/secrets/create'); // the write-only values really were sent
    expect(applied.stderr).toContain('/v1/connections/create');
    expect(tokenFiles.size).toBe(1); // apiKey/ci's token went to its tokenFile
    await runScanned({ name: 'apply prod --json --debug', args: ['apply', '-e', 'prod', '--json', '--auto-approve', '--debug'] });
    // Moving the rotation markers to now sends the provider secret and the connection's auth
    // fields again: a text apply with changes. (A marker in the future is refused by validate.)
    const platform = join(project, 'platform.yaml');
    writeFileSync(platform, readFileSync(platform, 'utf8').replaceAll('2000-01-01T00:00:00Z', new Date().toISOString()));
    const rotated = await runScanned({ name: 'apply rotation --debug', args: ['apply', '--auto-approve', '--debug'] });
    expect(rotated.stderr).toContain('/v1/providers/update');
    expect(rotated.stderr).toContain('/v1/connections/update');
    await runScanned({ name: 'apply rotation --json', args: ['apply', '-e', 'prod', '--auto-approve', '--json'] });
    await runScanned({ name: 'apply rotation text', args: ['apply', '--auto-approve'] });
    await runAll(withDebug([{ name: 'validate --remote', args: ['validate', '--remote', '-e', 'dev'] }]));
  });

  it('export, promote, history, rollback, diff-envs, graph, each with --debug', async () => {
    // Written outside the project (a second project inside it would not validate), scanned all the same.
    await runScanned({ name: 'export', args: ['export', '-e', 'dev', '--out', join(outside, 'exported')] });
    await runScanned({ name: 'export --debug', args: ['export', '-e', 'prod', '--out', join(outside, 'exported-prod'), '--debug'] });
    await runAll(
      withDebug([
        { name: 'promote', args: ['promote', 'support', '--from', 'dev', '--to', 'prod', '--auto-approve'] },
        { name: 'history', args: ['history', 'support', '-e', 'prod'] },
        { name: 'history --json', args: ['history', 'support', '-e', 'dev', '--json'] },
        { name: 'rollback', args: ['rollback', 'support', '--to', '1', '-e', 'dev', '--auto-approve'] },
        { name: 'diff-envs', args: ['diff-envs', 'dev', 'prod'] },
        { name: 'diff-envs --json', args: ['diff-envs', 'dev', 'prod', '--json'] },
        { name: 'graph', args: ['graph'] },
      ]),
      1,
    );
  });

  it('every operations command, by API key and by session cookie, each with --debug', async () => {
    const session = await (
      await fetch(`${plane.url}/dev/sessions/simulate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${plane.tokens.dev}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'support', pending: 1, events: ['session.started', 'tool.called'], usage: { inputTokens: 10 } }),
      })
    ).json();
    const sessionId = (session as { sessionId: string }).sessionId;
    const reads: Case[] = [
      { name: 'whoami', args: ['whoami'], global: true },
      { name: 'whoami --json', args: ['whoami', '--json'], global: true },
      { name: 'org', args: ['org'] },
      { name: 'env get', args: ['env', 'get', 'dev', '--json'] },
      { name: 'sandboxes', args: ['sandboxes'] },
      { name: 'usage', args: ['usage', '--json'] },
      { name: 'usage --csv', args: ['usage', '--csv'] },
      { name: 'sessions events', args: ['sessions', 'events', sessionId] },
      { name: 'sessions pending', args: ['sessions', 'pending', sessionId, '--json'] },
      { name: 'connections grants', args: ['connections', 'grants'] },
      { name: 'connections grants --json', args: ['connections', 'grants', '--json'] },
      { name: 'providers models', args: ['providers', 'models', 'openai'] },
      { name: 'hooks redeliver --all', args: ['hooks', 'redeliver', '--all', '--json'] },
      // Nothing listens at the connection's URL: the error path.
      { name: 'connections test', args: ['connections', 'test', 'tools'], code: 1 },
    ];
    await runAll(withDebug(reads));
    await runAll(withDebug(reads.map((c) => ({ ...c, name: `${c.name} (cookie)`, where: 'outside' as const }))));

    const created = await runScanned({
      name: 'keys create',
      args: ['keys', 'create', 'ci2', '--scopes', 'read', '--token-file', 'new.token', '--json', '--debug'],
    });
    expect(tokenFiles.has(join(project, 'new.token'))).toBe(true);
    const keyId = (JSON.parse(created.stdout) as { key: { id: string } }).key.id;
    await runScanned({
      name: 'keys create (cookie)',
      args: ['keys', 'create', 'ci3', '--scopes', 'read', '--token-file', 'cookie.token', '--debug'],
      where: 'outside',
    });
    await runScanned({ name: 'keys revoke', args: ['keys', 'revoke', keyId, '--debug'] });
    const secrets = await rpc<Array<{ id: string; name: string }>>('secrets.list', {}, plane.tokens.prod!);
    await runScanned({ name: 'secrets delete', args: ['secrets', 'delete', secrets[0]!.id, '-e', 'prod', '--debug'] });
  });

  it.each(['json envelope', 'plain text'])('an API error that echoes the request body (%s) does not print a secret', async (mode) => {
    const echo: RecordingServer = await startRecordingServer((request) => answerEchoing(request.path, request.text, mode === 'plain text'));
    try {
      for (const extra of [[], ['--debug'], ['--json']]) {
        const result = await runCli(['apply', '--auto-approve', ...extra], { cwd: project, env: { ...env, AGENTFORM_URL_DEV: echo.url } });
        expect(result.code).toBe(1);
        expect(result.stdout + result.stderr).toContain('cannot accept');
        expect(scanOutputs(result, sentinels)).toEqual([]);
      }
      // The values really were sent and echoed back: an unredacted echo would be caught.
      const sent = echo.requests.map((r) => r.text).join('\n');
      for (const name of ['LEAK_SECRET_VALUE', 'LEAK_PROVIDER_SECRET', 'LEAK_GRANT_TOKEN', 'LEAK_AUTH_SIGNING_KEY', 'LEAK_AUTH_CLIENT_SECRET'])
        expect(sent).toContain(env[name]);
      expect(scanFiles([project, outside], sentinels, tokenFiles)).toEqual([]);
    } finally {
      await echo.close();
    }
  });
});

const AT = '2026-01-01T00:00:00Z';
/** Reads answer as an empty environment (the connection is "created" so that its grants are sent); every write fails echoing its body. */
function answerEchoing(path: string, text: string, plain: boolean): { status: number; body: unknown } {
  if (path.endsWith('/list')) return { status: 200, body: [] };
  if (path === '/v1/organizations/get') return { status: 200, body: { id: 'org_1', name: 'Org', slug: 'org', createdAt: AT, updatedAt: AT } };
  if (path === '/v1/environments/get')
    return { status: 200, body: { id: 'env_1', slug: 'dev', name: 'dev', kind: 'development', createdAt: AT, updatedAt: AT } };
  if (path === '/v1/connections/create')
    return { status: 200, body: { id: 'con_1', name: 'tools', url: 'http://127.0.0.1:9/mcp', auth: { type: 'svc-signed' }, createdAt: AT, updatedAt: AT } };
  const message = `cannot accept ${text}`;
  return plain
    ? { status: 400, body: message }
    : { status: 400, body: { error: { code: 'invalid_argument', message, details: { echo: text, request: JSON.parse(text || '{}') as unknown } } } };
}
