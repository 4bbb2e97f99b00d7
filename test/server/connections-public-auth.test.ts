// What reads show of a connection's auth, its type alone (every other field is write-only, to every
// key: issue 45), is kept in plain text beside the sealed auth (migration 3, which fills it in for
// the rows already there), so listing connections does not open (decrypt) any row. Every other
// field stays sealed at rest, in the file and the WAL. What a read shows must not change for it: the copy
// is used only while it was taken from the sealed value the row holds now; a row without a copy,
// or one whose auth an older build rewrote (a stale copy), is opened as before. Rows are rewritten
// "as another build would" with the server stopped: a second connection writing while the
// in-process server holds a group's transaction open would block the event loop that commits it.
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

async function plane(dataDir?: string): Promise<Plane> {
  const started = await startServer(dataDir ? { dataDir } : {});
  planes.push(started);
  return started;
}

/** Stops `server`, lets `change` edit its database, and starts a server on the same data dir. */
async function restartedAfter(server: Plane, change: (db: Database.Database, cipher: FieldCipher) => void): Promise<Plane> {
  planes.splice(planes.indexOf(server), 1);
  await server.close();
  const db = new Database(join(server.dataDir, DATABASE_FILE));
  try {
    change(db, new FieldCipher(serverKeySource(server.dataDir).existing()!));
  } finally {
    db.close();
  }
  return plane(server.dataDir);
}

interface AuthColumns {
  id: string;
  name: string;
  auth: string;
  public_auth: string | null;
  public_auth_of: string | null;
}

/** The auth columns as they are on disk (read beside the running server: WAL lets it). */
function authColumns(dataDir: string): AuthColumns[] {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    return db.prepare('SELECT id, name, auth, public_auth, public_auth_of FROM connections ORDER BY name').all() as AuthColumns[];
  } finally {
    db.close();
  }
}

/** Each row's plain copy, and whether its stamp is that of the row's sealed auth. */
const copies = (dataDir: string) =>
  authColumns(dataDir).map((row) => [
    row.name,
    row.public_auth === null ? null : JSON.parse(row.public_auth),
    row.public_auth_of === FieldCipher.stampOf(row.auth),
  ]);

const listAuth = async (server: Plane) =>
  ((await call(server.url, 'connections.list', {}, server.tokens.dev!)).body as Array<{ name: string; auth: unknown }>).map((c) => [c.name, c.auth]);

async function create(server: Plane, name: string, auth: object): Promise<string> {
  const created = await call(server.url, 'connections.create', { name, auth }, server.tokens.dev!);
  expect(created.status, created.text).toBe(200);
  // The create answer shows the type alone too.
  expect(created.body.auth).toEqual({ type: (auth as { type: string }).type });
  return created.body.id as string;
}

const sentinel = `sentinel-${Date.now()}`;

describe('connections: what reads show of the auth, kept beside the sealed auth', () => {
  it('shows and keeps in plain text the type alone, whatever the field names; every other field stays sealed at rest', async () => {
    const server = await plane();
    await create(server, 'a-bearer', { type: 'bearer', token: `${sentinel}-token` });
    await create(server, 'b-signed', { type: 'svc-signed' });
    // Field names beyond `type` are not in the API's description: none is shown or kept in plain text.
    await create(server, 'c-header', { type: 'bearer', token: `${sentinel}-token2`, header: `${sentinel}-header` });
    const oauth = await create(server, 'd-oauth', {
      type: 'oauth',
      clientSecret: `${sentinel}-secret`,
      apiToken: `${sentinel}-apitoken`,
      basic: { password: `${sentinel}-nested` },
    });
    expect(copies(server.dataDir)).toEqual([
      ['a-bearer', { type: 'bearer' }, true],
      ['b-signed', { type: 'svc-signed' }, true],
      ['c-header', { type: 'bearer' }, true],
      ['d-oauth', { type: 'oauth' }, true],
    ]);
    expect(await listAuth(server)).toEqual([
      ['a-bearer', { type: 'bearer' }],
      ['b-signed', { type: 'svc-signed' }],
      ['c-header', { type: 'bearer' }],
      ['d-oauth', { type: 'oauth' }],
    ]);

    // To a read-only key alike (issue 45: a read key got client secrets and nested passwords back).
    const reader = await call(server.url, 'apiKeys.create', { key: { name: 'reader', scopes: ['read'] } }, server.tokens.dev!);
    const asReader = await call(server.url, 'connections.list', {}, reader.body.token as string);
    expect(asReader.status, asReader.text).toBe(200);
    expect((asReader.body as Array<{ auth: unknown }>).map((connection) => connection.auth)).toEqual([
      { type: 'bearer' },
      { type: 'svc-signed' },
      { type: 'bearer' },
      { type: 'oauth' },
    ]);
    expect(asReader.text).not.toContain(sentinel);

    // An update writes the copy again, under the new sealed auth's stamp.
    const before = authColumns(server.dataDir).find((row) => row.name === 'a-bearer')!;
    const updated = await call(
      server.url,
      'connections.update',
      { id: oauth, auth: { type: 'oauth', clientSecret: `${sentinel}-secret3` } },
      server.tokens.dev!,
    );
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.auth).toEqual({ type: 'oauth' });
    expect(copies(server.dataDir).find(([name]) => name === 'd-oauth')).toEqual(['d-oauth', { type: 'oauth' }, true]);
    const bearerUpdated = await call(
      server.url,
      'connections.update',
      { id: before.id, auth: { type: 'bearer', token: `${sentinel}-token4`, header: 'X' } },
      server.tokens.dev!,
    );
    expect(bearerUpdated.body.auth).toEqual({ type: 'bearer' });
    const after = authColumns(server.dataDir).find((row) => row.name === 'a-bearer')!;
    expect([after.public_auth, after.public_auth_of === FieldCipher.stampOf(after.auth), after.auth === before.auth]).toEqual([
      '{"type":"bearer"}',
      true,
      false,
    ]);

    // Nothing but `type` is in plain text: not in the database file, not in its WAL.
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`]) {
      expect(readFileSync(join(server.dataDir, file)).includes(Buffer.from(sentinel)), file).toBe(false);
    }
  });

  it('lists connections with a kept copy without opening their auth', async () => {
    const server = await plane();
    for (const name of ['a', 'b', 'c']) await create(server, name, { type: 'bearer', token: 'a-write-only-token' });
    const open = vi.spyOn(FieldCipher.prototype, 'open');
    expect(await listAuth(server)).toEqual([
      ['a', { type: 'bearer' }],
      ['b', { type: 'bearer' }],
      ['c', { type: 'bearer' }],
    ]);
    expect(open.mock.calls.filter(([field]) => field === 'connections.auth')).toEqual([]);
  });

  it('an upgraded database gets the copy for the connections it had; a row it cannot read keeps none and does not stop the start', async () => {
    const first = await plane();
    await create(first, 'bearer', { type: 'bearer', token: 'an-old-token' });
    await create(first, 'header', { type: 'bearer', token: 'an-old-token', header: 'X-Key' });
    await create(first, 'signed', { type: 'svc-signed' });
    await create(first, 'unreadable', { type: 'svc-signed' });
    // Back to schema version 2, as a build before migration 3 left it, with one auth it cannot parse.
    const upgraded = await restartedAfter(first, (db) => {
      db.prepare("UPDATE connections SET auth = '' WHERE name = 'unreadable'").run();
      db.exec(
        'ALTER TABLE connections DROP COLUMN public_auth; ALTER TABLE connections DROP COLUMN public_auth_of; DELETE FROM schema_migrations WHERE version = 3',
      );
    });
    expect(copies(upgraded.dataDir)).toEqual([
      ['bearer', { type: 'bearer' }, true],
      ['header', { type: 'bearer' }, true],
      ['signed', { type: 'svc-signed' }, true],
      ['unreadable', null, false],
    ]);
    // The unreadable row fails a list as it did before the migration; without it, the rest reads as before.
    const unreadable = authColumns(upgraded.dataDir).find((row) => row.name === 'unreadable')!;
    expect((await call(upgraded.url, 'connections.delete', { id: unreadable.id }, upgraded.tokens.dev!)).status).toBeLessThan(300);
    expect(await listAuth(upgraded)).toEqual([
      ['bearer', { type: 'bearer' }],
      ['header', { type: 'bearer' }],
      ['signed', { type: 'svc-signed' }],
    ]);
  });

  it('opens the auth of a row without a copy', async () => {
    const server = await plane();
    await create(server, 'old', { type: 'bearer', token: 'x' });
    const restarted = await restartedAfter(server, (db, cipher) => {
      const sealed = cipher.seal('connections.auth', JSON.stringify({ type: 'svc-signed' }));
      db.prepare("UPDATE connections SET auth = ?, public_auth = NULL, public_auth_of = NULL WHERE name = 'old'").run(sealed);
    });
    expect(await listAuth(restarted)).toEqual([['old', { type: 'svc-signed' }]]);
  });

  it('opens the auth of a row whose auth an older build rewrote (a stale copy is not shown)', async () => {
    const server = await plane();
    await create(server, 'rewritten', { type: 'bearer', token: 'x' });
    // An older build's update sets `auth` only; the kept copy still says bearer.
    const restarted = await restartedAfter(server, (db, cipher) => {
      db.prepare("UPDATE connections SET auth = ? WHERE name = 'rewritten'").run(cipher.seal('connections.auth', JSON.stringify({ type: 'svc-signed' })));
    });
    expect(await listAuth(restarted)).toEqual([['rewritten', { type: 'svc-signed' }]]);
  });

  it('a stamp is the sealed prefix, the IV and the tag: a re-seal of the same text is a new stamp', () => {
    const cipher = new FieldCipher(Buffer.alloc(32, 7));
    const first = cipher.seal('connections.auth', '{"type":"svc-signed"}');
    const second = cipher.seal('connections.auth', '{"type":"svc-signed"}');
    // 'enc:v1:' and 40 base64 characters: 30 bytes, the 12 of the IV and the 16 of the tag in full.
    expect(FieldCipher.stampOf(first)).toHaveLength('enc:v1:'.length + 40);
    expect(FieldCipher.stampOf(first)).not.toBe(FieldCipher.stampOf(second));
  });
});
