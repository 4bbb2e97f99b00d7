// The server keeps API keys it has looked up (auth.ts). A key that stops being usable must stop
// working on the very next request, however it stopped: revoked or its environment archived
// through this server, changed by another server on the same data dir, or past its expiry.
// And a cached key still has its lastUsedAt touched.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, startServer } from './helpers.js';

type Plane = Awaited<ReturnType<typeof startServer>>;

describe('the server reads a key again whenever what decides its fate may have changed', () => {
  let plane: Plane;
  let admin: string;

  beforeEach(async () => {
    plane = await startServer({ environments: ['dev', 'staging'] });
    admin = plane.tokens.dev!;
  });
  afterEach(async () => plane.cleanup());

  /** A fresh key of `environment`, used once, so that the server holds it. */
  async function cachedKey(environment: 'dev' | 'staging', extra: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
    const made = await call(
      plane.url,
      'apiKeys.create',
      { key: { name: `k-${Date.now()}`, scopes: ['read', 'control'], ...extra } },
      plane.tokens[environment]!,
    );
    expect(made.status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await call(plane.url, 'agents.list', {}, made.body.token)).status).toBe(200);
    return { id: made.body.key.id, token: made.body.token };
  }

  /**
   * A write through a connection of its own, as another server process on the data dir makes it.
   * Not a second server in this process: its synchronous open would wait for the write lock while
   * this thread, blocked, cannot run the first server's pending commit. Busy: try again shortly.
   */
  async function writeElsewhere(sql: string, ...params: unknown[]): Promise<{ status: number }> {
    const db = new Database(join(plane.dataDir, 'control-plane.db'), { timeout: 0 });
    try {
      for (;;) {
        try {
          expect(db.prepare(sql).run(...params).changes).toBe(1);
          return { status: 200 };
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
    } finally {
      db.close();
    }
  }
  const now = () => new Date().toISOString();

  it.each([
    ['revoked through this server', 'dev', async (id: string) => call(plane.url, 'apiKeys.revoke', { id }, admin), /unknown or revoked/],
    [
      'revoked by another process on the same data dir',
      'dev',
      async (id: string) => writeElsewhere('UPDATE api_keys SET revoked_at = ? WHERE id = ?', now(), id),
      /unknown or revoked/,
    ],
    [
      'its environment archived through this server',
      'staging',
      async () => call(plane.url, 'environments.archive', { slug: 'staging' }, plane.tokens.staging!),
      /archived/,
    ],
    [
      'its environment archived by another process',
      'staging',
      async () => writeElsewhere("UPDATE environments SET archived_at = ? WHERE slug = 'staging'", now()),
      /archived/,
    ],
  ] as const)('%s', async (_how, environment, stop, message) => {
    const key = await cachedKey(environment);
    expect((await stop(key.id)).status).toBe(200);
    const answer = await call(plane.url, 'agents.list', {}, key.token);
    expect(answer.status).toBe(401);
    expect(answer.body.error.message).toMatch(message);
    // The admin key, cached all along, still works.
    expect((await call(plane.url, 'agents.list', {}, admin)).status).toBe(200);
  });

  it('a cached key past its expiry', async () => {
    const expiresAt = new Date(Date.now() + 600).toISOString();
    const key = await cachedKey('dev', { expiresAt });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now() + 50)));
    const answer = await call(plane.url, 'agents.list', {}, key.token);
    expect(answer.status).toBe(401);
    expect(answer.body.error.message).toMatch(/expired/);
  });

  it('a cached key still gets its lastUsedAt', async () => {
    const key = await cachedKey('dev');
    const listed = (await call(plane.url, 'apiKeys.list', {}, admin)).body as Array<{ id: string; lastUsedAt: string | null }>;
    expect(listed.find((k) => k.id === key.id)?.lastUsedAt).toEqual(expect.any(String));
  });
});
