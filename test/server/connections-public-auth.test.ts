// A connection's public auth fields are kept beside its sealed auth (migration 3, which fills them
// in for the rows already there), so listing connections does not open (decrypt) every row. What
// a read shows must not change for it: the kept copy is used only while it was taken from the
// sealed value the row holds now; a row without a copy or one whose auth an older build rewrote
// (a stale copy) is opened as before. The copy never holds a write-only field, in the file or WAL.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DATABASE_FILE } from '../../src/server/embedded.js';
import { FieldCipher, serverKeySource } from '../../src/server/store/sealed.js';
import { call, startServer } from './helpers.js';

type Plane = Awaited<ReturnType<typeof startServer>>;
const planes: Plane[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(planes.splice(0).map((plane) => plane.cleanup()));
});

async function plane(): Promise<Plane> {
  const started = await startServer();
  planes.push(started);
  return started;
}

/** The database file beside the running server (WAL mode lets a second connection read and write). */
function openStore(dataDir: string): Database.Database {
  return new Database(join(dataDir, DATABASE_FILE));
}

/** A cipher with the server's own key, to write rows as another build would. */
function serverCipher(dataDir: string): FieldCipher {
  return new FieldCipher(serverKeySource(dataDir).existing()!);
}

/** Seals `auth` into a row as another build would: with its kept copy dropped (a row of a build before migration 3), or left as it was (an older build's update). */
function rewriteAuth(dataDir: string, id: string, auth: object, { dropCopy }: { dropCopy: boolean }): void {
  const db = openStore(dataDir);
  try {
    const sealed = serverCipher(dataDir).seal('connections.auth', JSON.stringify(auth));
    if (dropCopy) db.prepare('UPDATE connections SET auth = ?, public_auth = NULL, public_auth_of = NULL WHERE id = ?').run(sealed, id);
    else db.prepare('UPDATE connections SET auth = ? WHERE id = ?').run(sealed, id);
  } finally {
    db.close();
  }
}

const listed = async (server: Plane, name: string) =>
  ((await call(server.url, 'connections.list', {}, server.tokens.dev!)).body as Array<{ name: string; auth: unknown }>).find((c) => c.name === name)?.auth;

describe('connections: public auth kept beside the sealed auth', () => {
  it('is written with every create and update, without the write-only fields, tied to the sealed value', async () => {
    const server = await plane();
    const token = server.tokens.dev!;
    const secret = `sentinel-${Date.now()}-bearer-token`;
    const created = await call(server.url, 'connections.create', { name: 'c', url: 'http://127.0.0.1:9/mcp', auth: { type: 'bearer', token: secret, header: 'X-Key' } }, token);
    expect(created.status, created.text).toBe(200);
    expect(created.body.auth).toEqual({ type: 'bearer', header: 'X-Key' });
    const db = openStore(server.dataDir);
    try {
      const row = db.prepare('SELECT auth, public_auth, public_auth_of FROM connections WHERE name = ?').get('c') as { auth: string; public_auth: string; public_auth_of: string };
      expect(JSON.parse(row.public_auth)).toEqual({ type: 'bearer', header: 'X-Key' });
      expect(row.public_auth_of).toBe(FieldCipher.stampOf(row.auth));
      expect(row.public_auth.includes(secret)).toBe(false);

      const updated = await call(server.url, 'connections.update', { id: created.body.id, auth: { type: 'oauth', clientSecret: secret, clientId: 'app' } }, token);
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.auth).toEqual({ type: 'oauth', clientId: 'app' });
      const after = db.prepare('SELECT auth, public_auth, public_auth_of FROM connections WHERE name = ?').get('c') as { auth: string; public_auth: string; public_auth_of: string };
      expect(JSON.parse(after.public_auth)).toEqual({ type: 'oauth', clientId: 'app' });
      expect(after.public_auth_of).toBe(FieldCipher.stampOf(after.auth));
      expect(after.public_auth_of).not.toBe(row.public_auth_of);
    } finally {
      db.close();
    }
    expect(await listed(server, 'c')).toEqual({ type: 'oauth', clientId: 'app' });
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`]) {
      expect(readFileSync(join(server.dataDir, file)).includes(Buffer.from(secret)), file).toBe(false);
    }
  });

  it('lists connections without opening their auth', async () => {
    const server = await plane();
    const token = server.tokens.dev!;
    for (const name of ['a', 'b', 'c']) {
      expect((await call(server.url, 'connections.create', { name, auth: { type: 'bearer', token: 'a-write-only-token' } }, token)).status).toBe(200);
    }
    const open = vi.spyOn(FieldCipher.prototype, 'open');
    const list = await call(server.url, 'connections.list', {}, token);
    expect(list.body.map((c: { auth: unknown }) => c.auth)).toEqual([{ type: 'bearer' }, { type: 'bearer' }, { type: 'bearer' }]);
    expect(open.mock.calls.filter(([field]) => field === 'connections.auth')).toEqual([]);
  });

  it('an upgraded database gets the copy for the connections it had (migration 3 fills it in)', async () => {
    const first = await startServer();
    const token = first.tokens.dev!;
    for (const [name, auth] of [['bearer', { type: 'bearer', token: 'an-old-token', header: 'X-Key' }], ['signed', { type: 'svc-signed' }]] as const) {
      expect((await call(first.url, 'connections.create', { name, auth }, token)).status).toBe(200);
    }
    await first.close();
    // Back to schema version 2, as a build before migration 3 left it.
    const db = openStore(first.dataDir);
    try {
      db.exec('ALTER TABLE connections DROP COLUMN public_auth; ALTER TABLE connections DROP COLUMN public_auth_of; DELETE FROM schema_migrations WHERE version = 3');
    } finally {
      db.close();
    }
    const upgraded = await startServer({ dataDir: first.dataDir });
    planes.push(upgraded);
    const rows = openStore(first.dataDir);
    try {
      const kept = rows.prepare('SELECT name, auth, public_auth, public_auth_of FROM connections ORDER BY name').all() as Array<{ name: string; auth: string; public_auth: string; public_auth_of: string }>;
      expect(kept.map((row) => [row.name, JSON.parse(row.public_auth), row.public_auth_of === FieldCipher.stampOf(row.auth)])).toEqual([
        ['bearer', { type: 'bearer', header: 'X-Key' }, true],
        ['signed', { type: 'svc-signed' }, true],
      ]);
    } finally {
      rows.close();
    }
    const open = vi.spyOn(FieldCipher.prototype, 'open');
    expect(await listed(upgraded, 'bearer')).toEqual({ type: 'bearer', header: 'X-Key' });
    expect(open.mock.calls.filter(([field]) => field === 'connections.auth')).toEqual([]);
  });

  it('opens the auth of a row an older build wrote (no kept copy)', async () => {
    const server = await plane();
    const token = server.tokens.dev!;
    const created = await call(server.url, 'connections.create', { name: 'old', auth: { type: 'bearer', token: 'x' } }, token);
    rewriteAuth(server.dataDir, created.body.id, { type: 'oauth', clientId: 'from-old-build', clientSecret: 'y' }, { dropCopy: true });
    expect(await listed(server, 'old')).toEqual({ type: 'oauth', clientId: 'from-old-build' });
  });

  it('opens the auth of a row whose auth an older build rewrote (a stale kept copy is not shown)', async () => {
    const server = await plane();
    const token = server.tokens.dev!;
    const created = await call(server.url, 'connections.create', { name: 'rewritten', auth: { type: 'bearer', token: 'x' } }, token);
    // An older build's update sets `auth` only; the kept copy still says bearer.
    rewriteAuth(server.dataDir, created.body.id, { type: 'svc-signed' }, { dropCopy: false });
    expect(await listed(server, 'rewritten')).toEqual({ type: 'svc-signed' });
    // The same sealed plain text under a new IV is a different stamp too: a re-seal is noticed.
    const stamp = FieldCipher.stampOf(serverCipher(server.dataDir).seal('connections.auth', '{"type":"svc-signed"}'));
    expect(stamp).not.toBe(FieldCipher.stampOf(serverCipher(server.dataDir).seal('connections.auth', '{"type":"svc-signed"}')));
  });
});
