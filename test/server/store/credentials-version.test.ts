// credentials-version.ts: what tells the auth cache that a key may have changed. Every way the
// tables behind a key can change must move the version; other writes must not (or the cache
// would be emptied by every upsert).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { credentialsVersion, sameCredentialsVersion, writesCredentials } from '../../../src/server/store/credentials-version.js';
import { openDatabase, writeTx, type Db } from '../../../src/server/store/db.js';
import { committed, enableGroupCommit, flushGroup } from '../../../src/server/store/group-commit.js';
import { serverKeySource } from '../../../src/server/store/sealed.js';

describe('writesCredentials', () => {
  it.each([
    ['UPDATE api_keys SET last_used_at = ? WHERE id = ?', true],
    ['  update API_KEYS set revoked_at = ?', true],
    ['INSERT INTO api_keys (id) VALUES (?)', true],
    ['UPDATE environments SET archived_at = ?, updated_at = ? WHERE id = ?', true],
    ['INSERT INTO environments (id, organization_id) VALUES (?, ?)', true],
    ['DELETE FROM environments WHERE id = ?', true],
    ['UPDATE organizations SET name = ? WHERE id = ?', true],
    ['REPLACE INTO api_keys (id) VALUES (?)', true],
    ['INSERT INTO agents (id, environment_id, slug, created_at) VALUES (?, ?, ?, ?)', false],
    ['DELETE FROM agents WHERE environment_id = ? AND slug = ?', false],
    ['SELECT * FROM api_keys WHERE id = ?', false],
    ['SELECT k.id FROM api_keys k JOIN environments e ON e.id = k.environment_id', false],
  ])('%s -> %s', (sql, expected) => {
    expect(writesCredentials(sql)).toBe(expected);
  });
});

describe('credentialsVersion', () => {
  let dir: string;
  let db: Db;
  let organizationId: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentform-credentials-version-'));
    db = openDatabase(join(dir, 'control-plane.db'), { keys: serverKeySource(dir, {}) });
    db.prepare("INSERT INTO organizations (id, slug, name, idp_organization_id, created_at, updated_at) VALUES ('org_1', 'o', 'O', NULL, 't', 't')").run();
    organizationId = 'org_1';
  });
  afterEach(() => {
    flushGroup(db);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Whether `change` moved the version. */
  async function moves(change: () => unknown): Promise<boolean> {
    const before = credentialsVersion(db);
    try {
      await change();
    } catch {
      // a failing change still counts: what it undid may have been read meanwhile
    }
    return !sameCredentialsVersion(before, credentialsVersion(db));
  }

  it('moves with a write to a credential table through a prepared statement, or through exec', async () => {
    expect(await moves(() => db.prepare('UPDATE organizations SET name = ? WHERE id = ?').run('P', organizationId))).toBe(true);
    expect(await moves(() => db.exec(`UPDATE organizations SET name = 'Q' WHERE id = '${organizationId}'`))).toBe(true);
  });

  it('stays with writes elsewhere and with reads', async () => {
    expect(await moves(() => db.prepare("INSERT INTO server_meta (name, value) VALUES ('cv-a', 'x')").run())).toBe(false);
    expect(await moves(() => db.prepare('SELECT * FROM organizations').all())).toBe(false);
    expect(await moves(() => writeTx(db, () => db.prepare("INSERT INTO server_meta (name, value) VALUES ('cv-b', 'x')").run()))).toBe(false);
  });

  it('moves when another connection commits anything', async () => {
    const other = new Database(join(dir, 'control-plane.db'));
    try {
      expect(await moves(() => other.prepare("INSERT INTO server_meta (name, value) VALUES ('cv-other', 'x')").run())).toBe(true);
    } finally {
      other.close();
    }
  });

  it('moves when a write transaction rolls back, grouped or not', async () => {
    const failing = () =>
      writeTx(db, () => {
        db.prepare("INSERT INTO server_meta (name, value) VALUES ('cv-doomed', 'x')").run();
        throw new Error('handler failed');
      });
    expect(await moves(failing)).toBe(true);
    enableGroupCommit(db);
    expect(await moves(failing)).toBe(true);
    expect(await moves(() => committed(db))).toBe(false);
  });

  it('moves when a group commit fails and rolls back', async () => {
    enableGroupCommit(db);
    writeTx(db, () => db.prepare("INSERT INTO server_meta (name, value) VALUES ('cv-c', 'x')").run());
    db.pragma('defer_foreign_keys = ON');
    db.exec('CREATE TABLE IF NOT EXISTS cv_parent (id TEXT PRIMARY KEY)');
    db.exec('CREATE TABLE IF NOT EXISTS cv_child (parent TEXT REFERENCES cv_parent(id) DEFERRABLE INITIALLY DEFERRED)');
    db.prepare('INSERT INTO cv_child (parent) VALUES (?)').run('missing');
    expect(await moves(() => committed(db))).toBe(true);
  });
});
