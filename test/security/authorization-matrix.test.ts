// The authorization matrix (issue 9), generated from the contract's operation table: every
// operation × every kind of wrong credential gets the right denial, and never another
// environment's data. One shared local control plane; plain undici requests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, RPC_NAMES, type Rpc } from '../../src/api/operations.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { bearer, callRpc, populateDev, SAMPLE_REQUESTS, type DevObjects, type Headers } from './requests.js';

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
    plane = await startLocalControlPlane({ dataDir, environments: ['dev', 'prod'], bakeMs: 10, hookRetry: { maxAttempts: 1 }, devEndpoints: true });
    const admin = bearer(plane.tokens.dev!);
    dev = await populateDev(plane.url, plane.tokens.dev!);
    const mint = async (name: string, scopes: string[], expiresAt?: string): Promise<{ id: string; token: string }> => {
      const answer = await callRpc(plane.url, 'apiKeys.create', { key: { name, scopes, ...(expiresAt ? { expiresAt } : {}) } }, admin);
      expect(answer.status, answer.text).toBe(200);
      const body = JSON.parse(answer.text) as { key: { id: string }; token: string };
      return { id: body.key.id, token: body.token };
    };
    const revoked = await mint('revoked', ['read', 'control']);
    expect((await callRpc(plane.url, 'apiKeys.revoke', { id: revoked.id }, admin)).status).toBe(200);
    const expiresAt = Date.now() + 1_000;
    const expired = await mint('expired', ['read', 'control'], new Date(expiresAt).toISOString());
    const readOnly = await mint('read-only', ['read']);
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
});
