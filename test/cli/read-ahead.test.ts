// plan and apply read the live state while the resource files are still being parsed. What the
// user sees must not change: configuration problems first, the key guard before any request, each
// read once, and no wait on reads whose answers are no longer needed.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { calledRpcs, READ_RPC, runCli } from '../helpers/cli.js';
import { startRecordingServer } from '../helpers/recording-server.js';

const AGENT = `kind: Agent
name: helper
spec:
  model: {provider: main, model: gpt-4o}
  system: Be brief.
`;
const PROVIDER = 'kind: Provider\nname: main\nspec:\n  type: openai\n  secret: ${env:READ_AHEAD_SECRET:-x}\n';
const BROKEN_AGENT = `kind: Agent
name: broken
spec:
  model: {provider: main, model: gpt-4o}
  system: Be brief.
  limits: {maxTurns: many}
`;

async function project(url: string, files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentform-read-ahead-'));
  await writeFile(join(dir, 'agentform.yaml'), `version: 1\nenvironments:\n  dev:\n    url: ${url}\n    token: \${env:READ_AHEAD_TOKEN}\n`);
  await mkdir(join(dir, 'agents'));
  await writeFile(join(dir, 'providers.yaml'), PROVIDER);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, 'agents', name), text);
  return dir;
}

describe('reading the live state ahead of the resource files', () => {
  let plane: LocalControlPlane;
  let token: string;
  beforeAll(async () => {
    plane = await startLocalControlPlane({ dataDir: await mkdtemp(join(tmpdir(), 'agentform-read-ahead-data-')), environments: ['dev', 'staging'] });
    token = plane.tokens.dev as string;
  });
  afterAll(async () => {
    await plane.close();
  });

  it('reads each kind exactly once and plans as before', async () => {
    const dir = await project(plane.url, { 'helper.yaml': AGENT });
    const result = await runCli(['plan', dir, '--debug', '--detailed-exitcode'], { env: { READ_AHEAD_TOKEN: token } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toContain('+ agent/helper');
    const rpcs = calledRpcs(result.stderr);
    expect(rpcs.filter((rpc) => !READ_RPC.test(rpc))).toEqual([]);
    expect(rpcs.length).toBe(new Set(rpcs).size);
    expect(rpcs).toContain('agents.list');
  });

  it('sends the reads before loading the modules that work on their answers (plan and apply)', async () => {
    // The bundle is CommonJS: an import() started before the session opens is a require in the
    // next microtask, which held apply's reads back by ~15 ms of loading.
    const preload = fileURLToPath(new URL('../fixtures/preload/load-order.cjs', import.meta.url));
    for (const args of [['plan'], ['apply', '--auto-approve']]) {
      const dir = await project(plane.url, { 'helper.yaml': AGENT });
      const out = join(dir, 'load-order.txt');
      const result = await runCli([args[0] as string, dir, ...args.slice(1)], {
        env: { READ_AHEAD_TOKEN: token, NODE_OPTIONS: `--require ${preload}`, LOAD_ORDER_OUT: out },
      });
      expect(result.code, result.stderr).toBe(0);
      const events = readFileSync(out, 'utf8').split('\n');
      expect(events[0], events.join(', ')).toBe('request');
      expect(
        events.some((event) => event.startsWith('load ')),
        events.join(', '),
      ).toBe(true);
    }
  });

  it('reports a problem in a resource file, located, and nothing about the server', async () => {
    const dir = await project(plane.url, { 'helper.yaml': AGENT, 'broken.yaml': BROKEN_AGENT });
    for (const args of [
      ['plan', dir],
      ['apply', dir, '--auto-approve'],
    ]) {
      const result = await runCli(args, { env: { READ_AHEAD_TOKEN: token } });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/agents\/broken\.yaml:6:\d+/);
      expect(result.stderr).not.toContain('    at ');
    }
  });

  it('does not wait for reads that hang when the configuration turns out invalid', async () => {
    // A server that accepts requests and never answers them.
    const sockets = new Set<Socket>();
    const silent = createServer(() => undefined);
    silent.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const dir = await project(url, { 'helper.yaml': AGENT, 'broken.yaml': BROKEN_AGENT });
      const started = Date.now();
      const result = await runCli(['plan', dir], { env: { READ_AHEAD_TOKEN: 'svc_dev_readaheadtoken0123456789' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/agents\/broken\.yaml:6:\d+/);
      expect(sockets.size).toBeGreaterThan(0);
      // Far below the client's 30 s request timeout: the reads were cancelled, not waited for.
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);

  it('refuses a key of another environment before any request, config problems first', async () => {
    const recording = await startRecordingServer();
    try {
      const valid = await project(recording.url, { 'helper.yaml': AGENT });
      const wrongKey = { READ_AHEAD_TOKEN: plane.tokens.staging as string };
      const guarded = await runCli(['plan', valid], { env: wrongKey });
      expect(guarded.code).toBe(1);
      expect(guarded.stderr).toContain('is for environment staging, not dev');

      const invalid = await project(recording.url, { 'broken.yaml': BROKEN_AGENT });
      const both = await runCli(['plan', invalid], { env: wrongKey });
      expect(both.code).toBe(1);
      expect(both.stderr).toMatch(/agents\/broken\.yaml:6:\d+/);
      expect(recording.requests).toEqual([]);
    } finally {
      await recording.close();
    }
  });

  it('never starts the local control plane for a project that turns out invalid', async () => {
    const dir = await project('local', { 'broken.yaml': BROKEN_AGENT });
    const result = await runCli(['plan', dir]);
    expect(result.code).toBe(1);
    expect(existsSync(join(dir, '.agentform'))).toBe(false);
  });
});
