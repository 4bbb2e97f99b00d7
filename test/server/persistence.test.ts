// One data dir, many lives: restart keeps everything, and two server processes writing to the
// same SQLite file at once lose nothing.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, MINIMAL_DEFINITION, startServer, tempDir } from './helpers.js';
import { tokenPrefix } from '../../src/server/auth.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

describe('persistence across a restart', () => {
  it('keeps data and credentials; adds a new environment with its own key', async () => {
    const first = await startServer({ environments: ['dev'] });
    const dataDir = first.dataDir;
    const token = first.tokens.dev!;
    expect(token).toMatch(/^svc_dev_[0-9a-f]+$/);
    const file = join(dataDir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: first.url, environments: { dev: { token } } });
    await call(first.url, 'agents.upsert', { slug: 'kept', definition: MINIMAL_DEFINITION }, token);
    await call(first.url, 'secrets.create', { name: 'KEPT', value: 'v' }, token);
    await first.close();

    const second = await startServer({ dataDir, environments: ['dev', 'qa'] });
    try {
      expect(second.tokens.dev).toBe(token);
      expect(second.tokens.qa).toMatch(/^svc_qa_/);
      expect((await call(second.url, 'agents.get', { slug: 'kept' }, token)).body.version).toBe(1);
      expect((await call(second.url, 'secrets.list', {}, token)).body.map((s: { name: string }) => s.name)).toEqual(['KEPT']);
      expect((await call(second.url, 'environments.list', {}, second.tokens.qa!)).body.map((e: { slug: string }) => e.slug)).toEqual(['dev', 'qa']);
      // Keys are stored hashed: the database file never holds a token.
      const db = readFileSync(join(dataDir, 'control-plane.db'));
      expect(db.includes(Buffer.from(token))).toBe(false);
    } finally {
      await second.cleanup();
    }
  });

  it('mints a replacement key when the stored one was revoked', async () => {
    const first = await startServer();
    const old = first.tokens.dev!;
    const keys = (await call(first.url, 'apiKeys.list', {}, old)).body as Array<{ id: string; prefix: string }>;
    await call(first.url, 'apiKeys.revoke', { id: keys.find((k) => k.prefix === tokenPrefix(old))!.id }, old);
    await first.close();
    const second = await startServer({ dataDir: first.dataDir });
    try {
      expect(second.tokens.dev).not.toBe(old);
      expect((await call(second.url, 'agents.list', {}, second.tokens.dev!)).status).toBe(200);
    } finally {
      await second.cleanup();
    }
  });
});

describe('two server processes on one data dir', () => {
  const outDir = join(REPO, 'node_modules', '.cache', 'agentform-server-test');
  let dataDir: string;

  beforeAll(() => {
    // Child processes run plain node, so compile the server (and only it) once.
    execFileSync(
      process.execPath,
      [
        join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'),
        ...['--outDir', outDir, '--rootDir', REPO, '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022'],
        ...['--strict', '--skipLibCheck', '--esModuleInterop', '--resolveJsonModule', '--types', 'node'],
        join(REPO, 'src', 'server', 'embedded.ts'),
      ],
      { cwd: REPO, stdio: 'pipe' },
    );
    dataDir = tempDir();
  }, 120_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  function writer(name: string): Promise<{ token: string; created: number }> {
    const script = join(dataDir, `${name}.mjs`);
    writeFileSync(
      script,
      `import { startLocalControlPlane } from ${JSON.stringify(join(outDir, 'src', 'server', 'embedded.js'))};
const plane = await startLocalControlPlane({ dataDir: ${JSON.stringify(dataDir)}, environments: ['dev'] });
const token = plane.tokens.dev;
let created = 0;
async function one(i) {
  const r = await fetch(plane.url + '/v1/secrets/create', { method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body: JSON.stringify({ name: '${name}-' + i, value: 'v' }) });
  if (r.status !== 200) throw new Error('status ' + r.status + ' ' + await r.text());
  created++;
}
for (let i = 0; i < 200; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => one(i + j)));
await plane.close();
process.stdout.write(JSON.stringify({ token, created }));
`,
    );
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.stderr.on('data', (d: Buffer) => (err += d));
      child.on('exit', (code) =>
        code === 0 ? resolve(JSON.parse(out) as { token: string; created: number }) : reject(new Error(`${name} exited ${code}: ${err}`)),
      );
    });
  }

  it('switches a new database to WAL from two threads at once, 40 times, without "database is locked"', () => {
    // SQLite refuses that switch at once (SQLITE_BUSY, busy_timeout or not) when two connections
    // race for it; the test below failed so in a CI rehearsal. Unguarded, about a third of these
    // pairs fail (test/fixtures/server/open-race.mjs).
    const work = tempDir();
    try {
      const out = execFileSync(process.execPath, [join(REPO, 'test', 'fixtures', 'server', 'open-race.mjs'), outDir, work, '40'], { encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual({ pairs: 40, failures: [] });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);

  it('bootstraps once and keeps all 400 rows written concurrently', async () => {
    const [a, b] = await Promise.all([writer('a'), writer('b')]);
    expect(a.created).toBe(200);
    expect(b.created).toBe(200);
    // Both processes started on a fresh dir at once and still agree on one key.
    expect(a.token).toBe(b.token);
    const plane = await startServer({ dataDir });
    try {
      const names = ((await call(plane.url, 'secrets.list', {}, plane.tokens.dev!)).body as Array<{ name: string }>).map((s) => s.name);
      expect(names).toHaveLength(400);
      expect(new Set(names).size).toBe(400);
      expect(names.filter((n) => n.startsWith('a-'))).toHaveLength(200);
      const keys = (await call(plane.url, 'apiKeys.list', {}, plane.tokens.dev!)).body as unknown[];
      expect(keys).toHaveLength(1);
    } finally {
      await plane.close();
    }
  }, 120_000);
});
