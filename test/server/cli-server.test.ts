// `agentform server` as a user runs it: the built CLI in a child process (run `npm run build`
// first; `npm test` does).
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startServerProcess } from '../helpers/server-process.js';
import { call, post, tempDir } from './helpers.js';

describe('agentform server', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it.each(['SIGINT', 'SIGTERM'] as const)('serves, prints where the keys are (not the keys), stops cleanly on %s', async (signal) => {
    const data = tempDir();
    dirs.push(data);
    const server = startServerProcess(['--port', '0', '--data', data, '--environments', 'dev,qa']);
    const banner = await server.ready;
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]!;
    expect(banner).toContain(join(data, 'credentials.json'));
    const credentials = JSON.parse(readFileSync(join(data, 'credentials.json'), 'utf8'));
    const token = credentials.environments.dev.token as string;
    expect(banner).not.toContain(token);
    expect((await call(url, 'organizations.get', undefined, token)).body.slug).toBe('local');
    expect(await server.stop(signal)).toBe(0);
    expect(server.stdout()).toContain(`stopped (${signal})`);
  });

  it('--environments dev,prod:production creates environments of a kind, so a production project can apply to it', async () => {
    const data = tempDir();
    dirs.push(data);
    const server = startServerProcess(['--port', '0', '--data', data, '--environments', 'dev,prod:production']);
    const banner = await server.ready;
    expect(banner).toContain('environments: dev, prod (production)');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]!;
    const token = JSON.parse(readFileSync(join(data, 'credentials.json'), 'utf8')).environments.prod.token as string;
    expect((await call(url, 'environments.get', { slug: 'prod' }, token)).body.kind).toBe('production');

    const project = tempDir();
    dirs.push(project);
    writeFileSync(
      join(project, 'agentform.yaml'),
      // Spend caps are another test's: their rule, an error in production, would fail the plan.
      [
        'version: 1',
        'policy: {rules: {environment-spend-caps-missing: warning}}',
        'environments:',
        '  prod:',
        `    url: ${url}`,
        '    settings: {kind: production}',
        '',
      ].join('\n'),
    );
    const plan = await runCli(['plan', project, '--detailed-exitcode'], { env: { AGENTFORM_TOKEN_PROD: token } });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it.each([['prod:'], ['prod:Production'], ['Prod'], ['a:b:c'], ['']])('--environments %j is refused with what is allowed', async (list) => {
    const result = await runCli(['server', '--port', '0', '--data', tempDir(), '--environments', list]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--environments/);
    expect(result.stderr).not.toContain('    at ');
  });

  it('--print-keys prints them', async () => {
    const data = tempDir();
    dirs.push(data);
    const server = startServerProcess(['--port', '0', '--data', data, '--print-keys']);
    const banner = await server.ready;
    const token = JSON.parse(readFileSync(join(data, 'credentials.json'), 'utf8')).environments.dev.token as string;
    expect(banner).toContain(`dev: ${token}`);
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('--profile pessimistic serves that profile and says so', async () => {
    const data = tempDir();
    dirs.push(data);
    const server = startServerProcess(['--port', '0', '--data', data, '--profile', 'pessimistic']);
    const banner = await server.ready;
    expect(banner).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \(profile pessimistic\)/);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]!;
    const token = JSON.parse(readFileSync(join(data, 'credentials.json'), 'utf8')).environments.dev.token as string;
    const answer = await call(url, 'organizations.get', undefined, token);
    expect(Object.keys(answer.body)[0]).toBe('observedAt');
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it.each([
    [['--profile', 'optimistic'], /--profile: unknown server profile "optimistic"/],
    [['--host', '0.0.0.0'], /refusing to listen on 0\.0\.0\.0/],
    [['--fail-rate', '2'], /--fail-rate must be a number from 0 to 1/],
    [['--environments', 'Bad_Slug'], /invalid slug/],
    [['--durability', 'fast'], /--durability must be full or normal/],
    [['--unarchive', 'Bad_Slug'], /--unarchive: invalid slug "Bad_Slug"/],
    [['--unarchive', 'nowhere'], /--unarchive: there is no environment "nowhere"/],
    [['--enforce-tool-policy'], /--enforce-tool-policy needs --dev-endpoints/],
  ])('refuses %j', async (args, message) => {
    const data = tempDir();
    dirs.push(data);
    const result = await runCli(['server', '--port', '0', '--data', join(data, 'x'), ...args]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a data dir other users can read, saying how to fix it, with no stack trace', async () => {
    const data = tempDir();
    dirs.push(data);
    writeFileSync(join(data, 'notes.txt'), 'something already here\n');
    chmodSync(data, 0o755);
    const result = await runCli(['server', '--port', '0', '--data', data]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the data dir ${data} has mode 0755`);
    expect(result.stderr).toContain(`chmod 700 ${data}`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  // As initdb does: an empty directory made with plain `mkdir` (0755) holds nothing anyone could have
  // read (the shared peer benchmark makes its data dirs that way).
  it('makes an empty data dir of its own private (0700) instead of refusing it', async () => {
    const data = tempDir();
    dirs.push(data);
    chmodSync(data, 0o755);
    const server = startServerProcess(['--port', '0', '--data', data]);
    expect(await server.ready).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(statSync(data).mode & 0o777).toBe(0o700);
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('serves /dev/ only with --dev-endpoints', async () => {
    for (const [args, status] of [
      [[], 404],
      [['--dev-endpoints'], 200],
    ] as const) {
      const data = tempDir();
      dirs.push(data);
      const server = startServerProcess(['--port', '0', '--data', data, ...args]);
      const banner = await server.ready;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]!;
      const token = JSON.parse(readFileSync(join(data, 'credentials.json'), 'utf8')).environments.dev.token as string;
      expect((await post(url, '/dev/cookie', {}, token)).status, args.join(' ')).toBe(status);
      expect(await server.stop('SIGTERM')).toBe(0);
    }
  });
});
