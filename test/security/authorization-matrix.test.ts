// The authorization matrix (issues 9 and 16), generated from the contract's operation table: every
// operation × every kind of wrong credential gets the right denial, and never another
// environment's data; keys of archived or expired environments are refused; session cookies are
// bounded by the key that minted them; a credential grants only a subset of its own scopes. One
// shared local control plane; plain undici requests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, RPC_NAMES, type Rpc } from '../../src/api/operations.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { bearer, callRpc, populateDev, SAMPLE_REQUESTS, send, type DevObjects, type Headers } from './requests.js';

/** environments.* and organizations.* act at organization level (api-contract.md), the rest per environment. */
const ORGANIZATION_LEVEL = (rpc: Rpc): boolean => rpc.startsWith('environments.') || rpc.startsWith('organizations.');
const CONTROL_RPCS = RPC_NAMES.filter((rpc) => OPERATIONS[rpc].scope === 'control');
const READ_RPCS = RPC_NAMES.filter((rpc) => OPERATIONS[rpc].scope === 'read');

interface Credentials {
  none: Headers;
  malformed: Headers;
  malformedKey: Headers;
  unknown: Headers;
  revoked: Headers;
  expired: Headers;
  readOnly: Headers;
  otherEnvironment: Headers;
  controlOnly: Headers;
  identityLimited: Headers;
  /** A session cookie minted by the control-only key. */
  controlOnlyCookie: Headers;
  /** A session cookie minted by prod's key, naming dev in the tenancy header. */
  prodCookieNamingDev: Headers;
  archived: Headers;
  lapsed: Headers;
}

const UNAUTHENTICATED: Array<[string, keyof Credentials]> = [
  ['no credential', 'none'],
  ['a malformed authorization header', 'malformed'],
  ['a malformed key', 'malformedKey'],
  ['an unknown key', 'unknown'],
  ['a revoked key', 'revoked'],
  ['an expired key', 'expired'],
];

describe('authorization matrix', () => {
  let plane: LocalControlPlane;
  let dataDir: string;
  let dev: DevObjects;
  let creds: Credentials;
  /** Every id of a dev object: none may appear in an answer given to another environment's key. */
  let devMarkers: string[];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agentform-matrix-'));
    plane = await startLocalControlPlane({
      dataDir,
      environments: ['dev', 'prod', 'archived', 'lapsed'],
      bakeMs: 10,
      hookRetry: { maxAttempts: 1 },
      devEndpoints: true,
    });
    const admin = bearer(plane.tokens.dev!);
    dev = await populateDev(plane.url, plane.tokens.dev!);
    const mint = async (name: string, scopes: string[], expiresAt?: string, identityScopes?: string[]): Promise<{ id: string; token: string }> => {
      const answer = await callRpc(
        plane.url,
        'apiKeys.create',
        { key: { name, scopes, ...(expiresAt ? { expiresAt } : {}), ...(identityScopes ? { identityScopes } : {}) } },
        admin,
      );
      expect(answer.status, answer.text).toBe(200);
      const body = JSON.parse(answer.text) as { key: { id: string }; token: string };
      return { id: body.key.id, token: body.token };
    };
    const revoked = await mint('revoked', ['read', 'control']);
    expect((await callRpc(plane.url, 'apiKeys.revoke', { id: revoked.id }, admin)).status).toBe(200);
    const expiresAt = Date.now() + 1_000;
    const expired = await mint('expired', ['read', 'control'], new Date(expiresAt).toISOString());
    const readOnly = await mint('read-only', ['read']);
    const controlOnly = await mint('control-only', ['control']);
    const identityLimited = await mint('identity-limited', ['read', 'control'], undefined, ['user']);
    const cookieOf = async (token: string): Promise<string> => {
      const answer = await send(plane.url, '/dev/cookie', {}, bearer(token));
      expect(answer.status, answer.text).toBe(200);
      return (JSON.parse(answer.text) as { cookie: string }).cookie;
    };
    const controlOnlyCookie = await cookieOf(controlOnly.token);
    const prodCookie = await cookieOf(plane.tokens.prod!);
    // An archived environment, and one whose expiresAt has passed: their keys must stop working.
    // Archived with its own key: another environment's key may not (key-bounds-and-archive.test.ts).
    expect((await callRpc(plane.url, 'environments.archive', { slug: 'archived' }, bearer(plane.tokens.archived!))).status).toBe(200);
    // Lapsed with its own key too: another environment's key may not change it.
    expect((await callRpc(plane.url, 'environments.update', { slug: 'lapsed', expiresAt: '2001-01-01T00:00:00Z' }, bearer(plane.tokens.lapsed!))).status).toBe(
      200,
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 50)));
    creds = {
      none: {},
      malformed: { authorization: `Basic ${Buffer.from('dev:secret').toString('base64')}` },
      malformedKey: { authorization: 'Bearer svc_dev' },
      unknown: bearer(`svc_dev_${'0'.repeat(48)}`),
      revoked: bearer(revoked.token),
      expired: bearer(expired.token),
      readOnly: bearer(readOnly.token),
      // A prod key that also names dev in the tenancy header: the key's environment must win.
      otherEnvironment: { ...bearer(plane.tokens.prod!), 'x-svc-environment': 'dev' },
      controlOnly: bearer(controlOnly.token),
      identityLimited: bearer(identityLimited.token),
      controlOnlyCookie: { cookie: controlOnlyCookie },
      prodCookieNamingDev: { cookie: prodCookie, 'x-svc-environment': 'dev' },
      archived: bearer(plane.tokens.archived!),
      lapsed: bearer(plane.tokens.lapsed!),
    };
    devMarkers = Object.values(dev).filter((value) => /^[a-z]+_/.test(value));
    expect(devMarkers.length).toBeGreaterThanOrEqual(8);
  });

  afterAll(async () => {
    await plane?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** No dev id in `text`, except those the request itself named (a 404 message may repeat them). */
  const expectNoDevData = (text: string, request: unknown = {}): void => {
    const asked = JSON.stringify(request ?? {});
    for (const marker of devMarkers) if (!asked.includes(marker)) expect(text).not.toContain(marker);
  };

  describe.each(UNAUTHENTICATED)('401 with %s', (_label, credential) => {
    it.each(RPC_NAMES)('%s', async (rpc) => {
      const request = SAMPLE_REQUESTS[rpc](dev);
      const answer = await callRpc(plane.url, rpc, request, creds[credential]);
      expect(answer.status, answer.text).toBe(401);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'unauthenticated' } });
      expectNoDevData(answer.text, request);
    });
  });

  describe('a read-only key', () => {
    it.each(CONTROL_RPCS)('403 on %s', async (rpc) => {
      const answer = await callRpc(plane.url, rpc, SAMPLE_REQUESTS[rpc](dev), creds.readOnly);
      expect(answer.status, answer.text).toBe(403);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'permission_denied', details: { requiredScope: 'control' } } });
    });
    it.each(READ_RPCS)('is let through on %s', async (rpc) => {
      const answer = await callRpc(plane.url, rpc, SAMPLE_REQUESTS[rpc](dev), creds.readOnly);
      expect([200, 204, 404], answer.text).toContain(answer.status);
    });
  });

  describe("a key of another environment never reaches dev's objects", () => {
    it.each(RPC_NAMES)('%s', async (rpc) => {
      const answer = await callRpc(plane.url, rpc, SAMPLE_REQUESTS[rpc](dev), creds.otherEnvironment);
      expect(answer.status, answer.text).toBeLessThan(500);
      if (ORGANIZATION_LEVEL(rpc)) return;
      const request = SAMPLE_REQUESTS[rpc](dev);
      expectNoDevData(answer.text, request);
      // An operation that names a dev object by its id must not find it. (Slugs and names are per
      // environment: agents.upsert makes prod's own `devonly-agent`, which agents.get then reads.)
      if (devMarkers.some((marker) => JSON.stringify(request ?? {}).includes(marker))) expect(answer.status, answer.text).toBe(404);
    });

    it("leaves dev's objects as they were", async () => {
      const admin = bearer(plane.tokens.dev!);
      const read = async (rpc: Rpc, body: unknown = {}): Promise<string> => (await callRpc(plane.url, rpc, body, admin)).text;
      for (const id of [dev.providerId]) expect(await read('providers.list')).toContain(id);
      expect(await read('providers.list')).toContain('devonly-provider');
      expect(await read('secrets.list')).toContain(dev.secretId);
      expect(await read('connections.list')).toContain('devonly-conn');
      expect(await read('connections.grants.list')).toContain(dev.grantId);
      expect(JSON.parse(await read('apiKeys.list'))).toContainEqual(expect.objectContaining({ id: dev.keyId, revokedAt: null }));
      const agent = JSON.parse(await read('agents.get', { slug: dev.agentSlug })) as { version: number; definition: { system: string } };
      expect(agent).toMatchObject({ version: 1, definition: { system: 'You help.' } });
    });
  });
  describe.each([
    ['an archived environment', 'archived', /environment archived is archived/],
    ['an environment past its expiresAt', 'lapsed', /environment lapsed expired at/],
  ] as const)('401 with a key of %s', (_label, credential, message) => {
    it.each(RPC_NAMES)('%s', async (rpc) => {
      const answer = await callRpc(plane.url, rpc, SAMPLE_REQUESTS[rpc](dev), creds[credential]);
      expect(answer.status, answer.text).toBe(401);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'unauthenticated', message: expect.stringMatching(message) } });
    });
  });

  describe('a session cookie minted by a control-only key has only control', () => {
    it.each(READ_RPCS)('403 on %s', async (rpc) => {
      const answer = await callRpc(plane.url, rpc, SAMPLE_REQUESTS[rpc](dev), creds.controlOnlyCookie);
      expect(answer.status, answer.text).toBe(403);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'permission_denied', details: { requiredScope: 'read' } } });
    });
  });

  describe("a session cookie of prod that names dev never reaches dev's objects", () => {
    it.each(RPC_NAMES)('%s', async (rpc) => {
      const request = SAMPLE_REQUESTS[rpc](dev);
      const answer = await callRpc(plane.url, rpc, request, creds.prodCookieNamingDev);
      expect(answer.status, answer.text).toBe(403);
      expect(answer.text).toContain('bound to environment prod');
      expectNoDevData(answer.text, request);
    });
  });

  describe("apiKeys.create grants only a subset of the caller's scopes and identity scopes", () => {
    const ESCALATION: Array<[string, keyof Credentials | 'admin', string[], string[] | undefined, 200 | 403]> = [
      ['control-only key → control', 'controlOnly', ['control'], undefined, 200],
      ['control-only key → read', 'controlOnly', ['read'], undefined, 403],
      ['control-only key → read + control', 'controlOnly', ['read', 'control'], undefined, 403],
      ["control-only key's cookie → control", 'controlOnlyCookie', ['control'], undefined, 200],
      ["control-only key's cookie → read + control", 'controlOnlyCookie', ['read', 'control'], undefined, 403],
      ['read-only key → read', 'readOnly', ['read'], undefined, 403],
      ['identity-limited key (user) → user', 'identityLimited', ['read'], ['user'], 200],
      ['identity-limited key (user) → unlimited', 'identityLimited', ['read'], undefined, 403],
      ['identity-limited key (user) → user + team', 'identityLimited', ['read'], ['user', 'team'], 403],
      ['identity-limited key (user) → team', 'identityLimited', ['read'], ['team'], 403],
      ['read + control key → read + control, team', 'admin', ['read', 'control'], ['team'], 200],
    ];
    it.each(ESCALATION)('%s: %s', async (label, credential, scopes, identityScopes, expected) => {
      const name = `escalation ${label}`;
      const headers = credential === 'admin' ? bearer(plane.tokens.dev!) : creds[credential];
      const answer = await callRpc(plane.url, 'apiKeys.create', { key: { name, scopes, ...(identityScopes ? { identityScopes } : {}) } }, headers);
      expect(answer.status, answer.text).toBe(expected);
      const keys = JSON.parse((await callRpc(plane.url, 'apiKeys.list', {}, bearer(plane.tokens.dev!))).text) as Array<{
        name: string;
        scopes: string[];
        identityScopes: string[];
      }>;
      const made = keys.filter((key) => key.name === name);
      if (expected === 403) {
        expect(made).toEqual([]);
        expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'permission_denied' } });
      } else expect(made).toEqual([expect.objectContaining({ scopes, identityScopes: identityScopes ?? [] })]);
    });
  });

  describe('a session cookie lives no longer than the key that minted it', () => {
    const mintKey = async (name: string, expiresAt?: string): Promise<{ id: string; token: string }> => {
      const answer = await callRpc(
        plane.url,
        'apiKeys.create',
        { key: { name, scopes: ['read', 'control'], ...(expiresAt ? { expiresAt } : {}) } },
        bearer(plane.tokens.dev!),
      );
      const body = JSON.parse(answer.text) as { key: { id: string }; token: string };
      return { id: body.key.id, token: body.token };
    };
    const mintCookie = async (token: string): Promise<{ cookie: string; expiresAt: string }> =>
      JSON.parse((await send(plane.url, '/dev/cookie', {}, bearer(token))).text);

    it('dies when its key is revoked', async () => {
      const key = await mintKey('cookie-parent');
      const { cookie } = await mintCookie(key.token);
      expect((await callRpc(plane.url, 'agents.list', {}, { cookie })).status).toBe(200);
      expect((await callRpc(plane.url, 'apiKeys.revoke', { id: key.id }, bearer(plane.tokens.dev!))).status).toBe(200);
      const after = await callRpc(plane.url, 'agents.list', {}, { cookie });
      expect(after.status, after.text).toBe(401);
      expect(after.text).toContain('revoked');
    });

    it('expires with its key, and is never minted by another cookie', async () => {
      const keyExpiresAt = new Date(Date.now() + 600).toISOString();
      const key = await mintKey('cookie-short-parent', keyExpiresAt);
      const minted = await mintCookie(key.token);
      expect(Date.parse(minted.expiresAt)).toBeLessThanOrEqual(Date.parse(keyExpiresAt));
      expect((await callRpc(plane.url, 'agents.list', {}, { cookie: minted.cookie })).status).toBe(200);
      const fromCookie = await send(plane.url, '/dev/cookie', {}, { cookie: minted.cookie });
      expect(fromCookie.status, fromCookie.text).toBe(403);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(keyExpiresAt) - Date.now() + 50)));
      expect((await callRpc(plane.url, 'agents.list', {}, { cookie: minted.cookie })).status).toBe(401);
    });
  });
});
