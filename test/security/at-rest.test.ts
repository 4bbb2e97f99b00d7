// Secrets at rest (issue 16): sentinel secrets of every sealed kind never appear in plain text in
// the database, its WAL or SHM, running or stopped; the files are 0600; a data dir others can
// read is refused; the server key must match the database; a plain-text database of an older
// build is sealed by migration 2 and keeps working.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE, startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { openDatabase } from '../../src/server/store/db.js';
import { MIGRATIONS } from '../../src/server/store/migrations.js';
import { SERVER_KEY_ENV, SERVER_KEY_FILE, serverKeySource } from '../../src/server/store/sealed.js';
import { call, MINIMAL_DEFINITION, post, waitFor } from '../server/helpers.js';

const sentinel = (label: string): string => `sentinel-${label}-${randomBytes(10).toString('hex')}`;
const dirs: string[] = [];
const servers: Server[] = [];

function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentform-at-rest-'));
  dirs.push(dir);
  return dir;
}

/** Every file of the data dir that SQLite writes (the database, WAL, SHM), as they are now. */
function storeFiles(dataDir: string): Array<{ name: string; bytes: Buffer }> {
  return [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]
    .filter((name) => existsSync(join(dataDir, name)))
    .map((name) => ({ name, bytes: readFileSync(join(dataDir, name)) }));
}

function expectNoPlainText(dataDir: string, values: string[]): void {
  const files = storeFiles(dataDir);
  expect(files.length).toBeGreaterThan(0);
  for (const { name, bytes } of files) {
    for (const value of values) expect(bytes.includes(Buffer.from(value)), `${value} in ${name}`).toBe(false);
  }
}

/** A /models endpoint on 127.0.0.1 that records the Authorization header it gets. */
async function modelsEndpoint(): Promise<{ url: string; authorizations: string[] }> {
  const authorizations: string[] = [];
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: [{ id: 'm1' }] }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, authorizations };
}

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('secrets at rest', () => {
  it('no sealed value is in the database, WAL or SHM in plain text, while running or after', async () => {
    const dataDir = privateDir();
    const plane = await startLocalControlPlane({ dataDir, environments: ['dev'], devEndpoints: true });
    const token = plane.tokens.dev!;
    const values = {
      provider: sentinel('provider'),
      secret: sentinel('secret'),
      access: sentinel('access'),
      refresh: sentinel('refresh'),
      auth: sentinel('auth'),
      signing: sentinel('signing'),
    };
    try {
      expect((await call(plane.url, 'providers.create', { name: 'p', type: 'openai', secret: values.provider }, token)).status).toBe(200);
      expect((await call(plane.url, 'secrets.create', { name: 'S', value: values.secret }, token)).status).toBe(200);
      const bearer = await call(
        plane.url,
        'connections.create',
        { name: 'bearer', url: 'http://127.0.0.1:9/mcp', auth: { type: 'bearer', token: values.auth } },
        token,
      );
      expect(bearer.status).toBe(200);
      const signed = await call(plane.url, 'connections.create', { name: 'signed', auth: { type: 'svc-signed', secret: values.signing } }, token);
      expect(signed.status).toBe(200);
      const grants = await call(
        plane.url,
        'connections.grants.import',
        {
          connectionId: bearer.body.id,
          mode: 'overwrite',
          grants: [{ identity: { scope: 'user', id: 'ada' }, accessToken: values.access, refreshToken: values.refresh }],
        },
        token,
      );
      expect(grants.body.results[0].outcome).toBe('created');
      // The WAL holds the recent pages while the server runs: it is checked too.
      expect(existsSync(join(dataDir, `${DATABASE_FILE}-wal`))).toBe(true);
      expectNoPlainText(dataDir, Object.values(values));
      // Sealed is not lost: the server still knows there is a refresh token.
      expect((await call(plane.url, 'connections.grants.list', {}, token)).body[0].hasRefreshToken).toBe(true);
    } finally {
      await plane.close();
    }
    expectNoPlainText(dataDir, Object.values(values));
    // The key is beside the database, never in it.
    const key = readFileSync(join(dataDir, SERVER_KEY_FILE), 'utf8').trim();
    expect(storeFiles(dataDir).some(({ bytes }) => bytes.includes(Buffer.from(key)))).toBe(false);
  });

  it('the database, WAL, SHM and key files are 0600 and the data dir 0700', async () => {
    const dataDir = join(privateDir(), 'fresh');
    const plane = await startLocalControlPlane({ dataDir, environments: ['dev'] });
    try {
      await call(plane.url, 'secrets.create', { name: 'S', value: 'v' }, plane.tokens.dev!);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      for (const name of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, SERVER_KEY_FILE, 'credentials.json']) {
        expect(statSync(join(dataDir, name)).mode & 0o777, name).toBe(0o600);
      }
    } finally {
      await plane.close();
    }
  });

  it('narrows the files of an older build (0644) to 0600 on start', async () => {
    const dataDir = privateDir();
    await (await startLocalControlPlane({ dataDir })).close();
    chmodSync(join(dataDir, DATABASE_FILE), 0o644);
    const plane = await startLocalControlPlane({ dataDir });
    try {
      expect(statSync(join(dataDir, DATABASE_FILE)).mode & 0o777).toBe(0o600);
    } finally {
      await plane.close();
    }
  });

  it.each(['0755', '0705', '0770'])('refuses a data dir with mode %s that already holds something, saying how to fix it', async (mode) => {
    const dataDir = privateDir();
    writeFileSync(join(dataDir, 'left-here'), 'x');
    chmodSync(dataDir, Number.parseInt(mode, 8));
    await expect(startLocalControlPlane({ dataDir })).rejects.toThrow(/other users could read.*chmod 700/);
    expect(existsSync(join(dataDir, DATABASE_FILE))).toBe(false);
    expect(statSync(dataDir).mode & 0o777).toBe(Number.parseInt(mode, 8));
  });

  it.each(['0755', '0777'])('makes an empty data dir of its own with mode %s private (0700) before writing to it, as initdb does', async (mode) => {
    const dataDir = privateDir();
    chmodSync(dataDir, Number.parseInt(mode, 8));
    await (await startLocalControlPlane({ dataDir })).close();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('accepts 0750 (group may read, as PostgreSQL allows)', async () => {
    const dataDir = privateDir();
    chmodSync(dataDir, 0o750);
    await (await startLocalControlPlane({ dataDir })).close();
  });

  it('refuses a missing or different server key instead of sealing with a new one', async () => {
    const dataDir = privateDir();
    await (await startLocalControlPlane({ dataDir })).close();
    const key = readFileSync(join(dataDir, SERVER_KEY_FILE), 'utf8');
    rmSync(join(dataDir, SERVER_KEY_FILE));
    await expect(startLocalControlPlane({ dataDir })).rejects.toThrow(/sealed with a server key that is missing: restore .*server\.key/);
    expect(existsSync(join(dataDir, SERVER_KEY_FILE))).toBe(false); // no new key was made
    const other = randomBytes(32).toString('base64');
    await expect(startLocalControlPlane({ dataDir, env: { [SERVER_KEY_ENV]: other } })).rejects.toThrow(/AGENTFORM_SERVER_KEY is not the one/);
    // The right key from the environment works, and no key file is written.
    await (await startLocalControlPlane({ dataDir, env: { [SERVER_KEY_ENV]: key.trim() } })).close();
    expect(existsSync(join(dataDir, SERVER_KEY_FILE))).toBe(false);
    writeFileSync(join(dataDir, SERVER_KEY_FILE), key, { mode: 0o644 });
    chmodSync(join(dataDir, SERVER_KEY_FILE), 0o644);
    await expect(startLocalControlPlane({ dataDir })).rejects.toThrow(/readable by others.*chmod 600/);
    chmodSync(join(dataDir, SERVER_KEY_FILE), 0o600);
    await (await startLocalControlPlane({ dataDir })).close();
  });

  it('refuses a malformed AGENTFORM_SERVER_KEY', async () => {
    await expect(startLocalControlPlane({ dataDir: privateDir(), env: { [SERVER_KEY_ENV]: 'too-short' } })).rejects.toThrow(/32-byte key/);
  });

  it('durability is synchronous=FULL unless normal is asked for', () => {
    const dataDir = privateDir();
    const keys = serverKeySource(dataDir);
    for (const [durability, level] of [
      [undefined, 2],
      ['full', 2],
      ['normal', 1],
    ] as const) {
      const db = openDatabase(join(dataDir, DATABASE_FILE), { keys, ...(durability ? { durability } : {}) });
      expect(db.pragma('synchronous', { simple: true }), String(durability)).toBe(level);
      db.close();
    }
  });
});

describe('a plain-text database of an older build', () => {
  let plane: LocalControlPlane | undefined;
  afterAll(async () => plane?.close());

  it('is sealed on first start (no plain copy left in the file or WAL) and its secrets still work', async () => {
    const dataDir = privateDir();
    // Build schema version 1 by hand and start it once with a key, as version-1 servers wrote it.
    const first = await startLocalControlPlane({ dataDir, environments: ['dev'], devEndpoints: true });
    const token = first.tokens.dev!;
    await first.close();
    rmSync(join(dataDir, DATABASE_FILE));
    rmSync(join(dataDir, SERVER_KEY_FILE));
    const models = await modelsEndpoint();
    const values = {
      provider: sentinel('old-provider'),
      secret: sentinel('old-secret'),
      access: sentinel('old-access'),
      auth: sentinel('old-auth'),
      signing: `whsec_${sentinel('old-signing')}`,
    };
    const v1 = new Database(join(dataDir, DATABASE_FILE));
    v1.exec(MIGRATIONS[0]!.sql);
    v1.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)');
    v1.prepare("INSERT INTO schema_migrations VALUES (1, 'initial schema', '2026-01-01T00:00:00Z')").run();
    const now = '2026-01-01T00:00:00.000Z';
    v1.prepare("INSERT INTO organizations VALUES ('org_1', 'local', 'Local', NULL, ?, ?)").run(now, now);
    v1.prepare(
      "INSERT INTO environments (id, organization_id, slug, name, kind, created_by, created_at, updated_at, spend, retention) VALUES ('env_1', 'org_1', 'dev', 'dev', 'development', 'x', ?, ?, '{}', '{}')",
    ).run(now, now);
    const { tokenHash, tokenPrefix } = await import('../../src/server/auth.js');
    v1.prepare(
      `INSERT INTO api_keys (id, environment_id, name, prefix, token_hash, scopes, identity_scopes, spend, created_by, created_at) VALUES ('key_1', 'env_1', 'local-dev', ?, ?, '["read","control"]', '[]', '{}', 'x', ?)`,
    ).run(tokenPrefix(token), tokenHash(token), now);
    v1.prepare("INSERT INTO session_cookies VALUES ('old-cookie-hash', 'org_1', ?)").run(now);
    v1.prepare("INSERT INTO providers VALUES ('prv_1', 'env_1', 'old', 'openai', ?, ?, ?, ?)").run(models.url, values.provider, now, now);
    v1.prepare("INSERT INTO secrets VALUES ('sec_1', 'env_1', 'OLD', ?, ?, ?)").run(values.secret, now, now);
    v1.prepare("INSERT INTO connections VALUES ('con_1', 'env_1', 'old', NULL, 'streamable-http', 'default', NULL, ?, '[]', NULL, ?, ?)").run(
      JSON.stringify({ type: 'bearer', token: values.auth }),
      now,
      now,
    );
    v1.prepare(
      "INSERT INTO connections VALUES ('con_2', 'env_1', 'hooks', NULL, 'streamable-http', 'default', NULL, '{\"type\":\"svc-signed\"}', '[\"old.event\"]', ?, ?, ?)",
    ).run(values.signing, now, now);
    v1.prepare("INSERT INTO grants VALUES ('grt_1', 'env_1', 'con_1', 'user', 'ada', ?, NULL, 'active', NULL, NULL, ?, ?, NULL)").run(values.access, now, now);
    v1.close();
    chmodSync(join(dataDir, DATABASE_FILE), 0o600);
    expect(readFileSync(join(dataDir, DATABASE_FILE)).includes(Buffer.from(values.secret))).toBe(true); // the test is not vacuous

    plane = await startLocalControlPlane({ dataDir, environments: ['dev'], devEndpoints: true });
    expectNoPlainText(dataDir, Object.values(values));
    const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
    expect((db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number }).v).toBe(MIGRATIONS.at(-1)!.version);
    expect((db.prepare('SELECT COUNT(*) AS n FROM session_cookies').get() as { n: number }).n).toBe(0); // unbounded cookies dropped
    db.close();

    // The sealed values are the same values: the provider secret still reaches its endpoint...
    const listed = await call(plane.url, 'providers.models', { name: 'old' }, token);
    expect(listed.status, listed.text).toBe(200);
    expect(models.authorizations).toEqual([`Bearer ${values.provider}`]);
    expect((await call(plane.url, 'providers.list', {}, token)).body[0].hasSecret).toBe(true);
    // ...the auth of a connection is still write-only, and the signing secret still signs.
    expect((await call(plane.url, 'connections.list', {}, token)).body.find((c: { name: string }) => c.name === 'old').auth).toEqual({ type: 'bearer' });
    const receiver = await new Promise<{ url: string; bodies: Array<{ body: string; signature: string }> }>((resolve) => {
      const bodies: Array<{ body: string; signature: string }> = [];
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d));
        req.on('end', () => {
          bodies.push({ body, signature: String(req.headers['x-svc-signature']) });
          res.end();
        });
      });
      servers.push(server);
      server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, bodies }));
    });
    await call(plane.url, 'connections.update', { id: 'con_2', hooksUrl: receiver.url }, token);
    await call(plane.url, 'agents.upsert', { slug: 'bot', definition: MINIMAL_DEFINITION }, token);
    await post(plane.url, '/dev/sessions/simulate', { agent: 'bot', events: ['old.event'] }, token);
    const hit = await waitFor(async () => receiver.bodies[0]);
    const { verifySignature } = await import('../../src/server/hooks/signing.js');
    expect(verifySignature(hit.body, hit.signature, values.signing)).toBe(true);
  });
});
