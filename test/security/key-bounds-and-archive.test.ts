// Issue 45, items 3 and 4, under both server profiles: a key creates keys only within its own spend
// caps and expiry (a bound left out is the creator's, a wider one is refused), and only an
// environment's own credential (or the key that created it, while it has no key) archives or
// updates it; the operator undoes an archive with `--unarchive`.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerProfileName } from '../../src/server/profiles.js';
import { call, startServer } from '../server/helpers.js';

type Plane = Awaited<ReturnType<typeof startServer>>;
const PROFILES: ServerProfileName[] = ['default', 'pessimistic'];
const HOUR_MS = 60 * 60 * 1000;

describe.each(PROFILES)('profile %s', (profile) => {
  let plane: Plane;
  beforeEach(async () => {
    plane = await startServer({ environments: ['dev', { slug: 'prod', kind: 'production' }], profile });
  });
  afterEach(async () => plane.cleanup());

  describe('a key creates keys only within its own bounds', () => {
    const parentExpiresAt = new Date(Date.now() + HOUR_MS).toISOString();
    const later = new Date(Date.now() + 2 * HOUR_MS).toISOString();
    const sooner = new Date(Date.now() + HOUR_MS / 2).toISOString();
    let parent: string;
    beforeEach(async () => {
      const made = await call(
        plane.url,
        'apiKeys.create',
        { key: { name: 'capped', scopes: ['read', 'control'], spend: { dailyUsd: 1 }, expiresAt: parentExpiresAt } },
        plane.tokens.dev!,
      );
      expect(made.status, made.text).toBe(200);
      parent = made.body.token;
    });

    const CASES: Array<[string, Record<string, unknown>, { spend: Record<string, number>; expiresAt: string } | { refused: string }]> = [
      ["leaves both out: gets the parent's", {}, { spend: { dailyUsd: 1 }, expiresAt: parentExpiresAt }],
      ["sends a null expiry: gets the parent's", { expiresAt: null }, { spend: { dailyUsd: 1 }, expiresAt: parentExpiresAt }],
      [
        'asks for narrower: gets it',
        { spend: { dailyUsd: 0.5, tokensPerMonth: 5 }, expiresAt: sooner },
        { spend: { dailyUsd: 0.5, tokensPerMonth: 5 }, expiresAt: sooner },
      ],
      ['asks for a wider spend cap: refused', { spend: { dailyUsd: 2 } }, { refused: 'key.spend.dailyUsd' }],
      ['asks for a later expiry: refused', { expiresAt: later }, { refused: 'key.expiresAt' }],
    ];
    it.each(CASES)('a child that %s', async (label, extra, expected) => {
      const name = `child ${label}`;
      const answer = await call(plane.url, 'apiKeys.create', { key: { name, scopes: ['read'], ...extra } }, parent);
      const made = (await call(plane.url, 'apiKeys.list', {}, plane.tokens.dev!)).body.filter((key: { name: string }) => key.name === name);
      if ('refused' in expected) {
        expect(answer.status, answer.text).toBe(403);
        expect(answer.body.error).toMatchObject({ code: 'permission_denied', details: { field: expected.refused } });
        expect(answer.body.error.message).toContain(expected.refused);
        expect(made).toEqual([]);
      } else {
        expect(answer.status, answer.text).toBe(200);
        // toMatchObject: the pessimistic profile adds fields of its own (serverRevision).
        expect(answer.body.key.spend).toMatchObject(expected.spend);
        expect(answer.body.key.spend.dailyUsd).toBe(expected.spend.dailyUsd);
        expect(Date.parse(answer.body.key.expiresAt)).toBe(Date.parse(expected.expiresAt));
      }
    });
  });

  describe('archiving', () => {
    it("is refused to another environment's key, which leaves it working", async () => {
      const answer = await call(plane.url, 'environments.archive', { slug: 'prod' }, plane.tokens.dev!);
      expect(answer.status, answer.text).toBe(403);
      expect(answer.body.error.code).toBe('permission_denied');
      expect((await call(plane.url, 'environments.get', { slug: 'prod' }, plane.tokens.dev!)).body.archivedAt ?? null).toBeNull();
      expect((await call(plane.url, 'agents.list', {}, plane.tokens.prod!)).status).toBe(200);
    });

    it('is allowed to the key that created an environment with no key of its own', async () => {
      expect((await call(plane.url, 'environments.create', { slug: 'scratch', name: 'Scratch' }, plane.tokens.dev!)).status).toBe(200);
      expect((await call(plane.url, 'environments.archive', { slug: 'scratch' }, plane.tokens.prod!)).status).toBe(403);
      const answer = await call(plane.url, 'environments.archive', { slug: 'scratch' }, plane.tokens.dev!);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.archivedAt).toEqual(expect.any(String));
    });

    it("is allowed to the environment's own key, and undone by restarting with --unarchive", async () => {
      const prodToken = plane.tokens.prod!;
      expect((await call(plane.url, 'environments.archive', { slug: 'prod' }, prodToken)).status).toBe(200);
      expect((await call(plane.url, 'agents.list', {}, prodToken)).status).toBe(401);
      await plane.close();
      plane = await startServer({ dataDir: plane.dataDir, environments: ['dev', 'prod'], profile, unarchive: ['prod'] });
      expect(plane.tokens.prod).toBe(prodToken);
      expect((await call(plane.url, 'agents.list', {}, prodToken)).status).toBe(200);
      expect((await call(plane.url, 'environments.get', { slug: 'prod' }, prodToken)).body.archivedAt ?? null).toBeNull();
    });
  });

  describe('updating an environment', () => {
    const past = '2001-01-01T00:00:00Z';
    it.each([
      ['an expiresAt in the past', { expiresAt: past }],
      ['a spend cap of 0', { spend: { dailyUsd: 0 } }],
      ['a new name', { name: 'Renamed' }],
    ])("is refused to another environment's key (%s), which leaves it as it was", async (_label, patch) => {
      // The fields an update sets (the pessimistic profile adds volatile ones of its own).
      const settings = async () => {
        const { name, kind, expiresAt, spend, retention, updatedAt } = (await call(plane.url, 'environments.get', { slug: 'prod' }, plane.tokens.prod!)).body;
        return { name, kind, expiresAt, spend, retention, updatedAt };
      };
      const before = await settings();
      const answer = await call(plane.url, 'environments.update', { slug: 'prod', ...patch }, plane.tokens.dev!);
      expect(answer.status, answer.text).toBe(403);
      expect(answer.body.error).toMatchObject({ code: 'permission_denied', details: { field: 'slug' } });
      expect(answer.body.error.message).toContain('environment prod can only be changed with one of its own credentials');
      expect(await settings()).toEqual(before);
      expect((await call(plane.url, 'agents.list', {}, plane.tokens.prod!)).status).toBe(200);
    });

    it("is allowed to the environment's own key, and to the key that created one with no key of its own", async () => {
      const own = await call(plane.url, 'environments.update', { slug: 'prod', name: 'Production' }, plane.tokens.prod!);
      expect(own.status, own.text).toBe(200);
      expect(own.body.name).toBe('Production');
      expect((await call(plane.url, 'environments.create', { slug: 'scratch', name: 'Scratch' }, plane.tokens.dev!)).status).toBe(200);
      expect((await call(plane.url, 'environments.update', { slug: 'scratch', expiresAt: past }, plane.tokens.prod!)).status).toBe(403);
      const byCreator = await call(plane.url, 'environments.update', { slug: 'scratch', name: 'Scratch 2' }, plane.tokens.dev!);
      expect(byCreator.status, byCreator.text).toBe(200);
    });
  });
});
