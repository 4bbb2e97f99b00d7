// The wire contract's failure side: error body shape and status per code, authentication,
// scopes (control does not imply read), tenancy isolation and session cookies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/server/http.js';
import { call, MINIMAL_DEFINITION, post, rpcPath, startServer } from './helpers.js';

describe('errors, auth and tenancy', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  let dev: string;
  let prod: string;
  let readOnly: string;
  let controlOnly: string;

  beforeAll(async () => {
    plane = await startServer({ environments: ['dev', 'prod'] });
    dev = plane.tokens.dev!;
    prod = plane.tokens.prod!;
    readOnly = (await call(plane.url, 'apiKeys.create', { key: { name: 'ro', scopes: ['read'] } }, dev)).body.token;
    controlOnly = (await call(plane.url, 'apiKeys.create', { key: { name: 'co', scopes: ['control'] } }, dev)).body.token;
  });
  afterAll(async () => plane?.cleanup());

  const errorShape = (code: string) => ({ error: { code, message: expect.any(String) } });

  it.each([
    [
      'invalid_argument: missing field',
      'agents.upsert',
      { slug: 'a', definition: { ...MINIMAL_DEFINITION, system: undefined } },
      400,
      'invalid_argument',
      'definition.system',
    ],
    [
      'invalid_argument: wrong type',
      'agents.upsert',
      { slug: 'a', definition: { ...MINIMAL_DEFINITION, limits: { maxTurns: 'ten' } } },
      400,
      'invalid_argument',
      'definition.limits.maxTurns',
    ],
    ['invalid_argument: enum', 'connections.grants.import', { connectionId: 'x', mode: 'merge', grants: [] }, 400, 'invalid_argument', 'mode'],
    ['invalid_argument: bad period', 'usage.keys', { period: { from: 'yesterday', to: '2030-01-01T00:00:00Z' } }, 400, 'invalid_argument', 'period.from'],
    ['not_found: agent', 'agents.get', { slug: 'ghost' }, 404, 'not_found', 'ghost'],
    ['not_found: connection', 'connections.test', { id: 'con_missing' }, 404, 'not_found', 'con_missing'],
    ['not_found: environment', 'environments.get', { slug: 'nope' }, 404, 'not_found', 'nope'],
    ['not_found: session', 'sessions.events', { id: 'ses_x' }, 404, 'not_found', 'ses_x'],
    ['unimplemented: unknown operation', 'agents.fly', {}, 404, 'unimplemented', '/v1/agents/fly'],
  ])('%s', async (_name, rpc, body, status, code, mentions) => {
    const answer = await call(plane.url, rpc, body, dev);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject(errorShape(code));
    expect(answer.body.error.message).toContain(mentions);
  });

  it('already_exists for a duplicate name, per environment', async () => {
    expect((await call(plane.url, 'secrets.create', { name: 'TOKEN', value: 'v' }, dev)).status).toBe(200);
    const again = await call(plane.url, 'secrets.create', { name: 'TOKEN', value: 'v' }, dev);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject(errorShape('already_exists'));
    // Same name in another environment is fine.
    expect((await call(plane.url, 'secrets.create', { name: 'TOKEN', value: 'v' }, prod)).status).toBe(200);
    for (const rpc of ['connections.create', 'providers.create'] as const) {
      const body = rpc === 'connections.create' ? { name: 'dup', auth: { type: 'none' } } : { name: 'dup', type: 'openai' };
      expect((await call(plane.url, rpc, body, dev)).status).toBe(200);
      expect((await call(plane.url, rpc, body, dev)).body).toMatchObject(errorShape('already_exists'));
    }
    expect((await call(plane.url, 'environments.create', { slug: 'prod', name: 'again' }, dev)).status).toBe(409);
  });

  it('transport errors: 405, bad JSON, non-object, oversized body', async () => {
    const get = await post(plane.url, rpcPath('agents.list'), undefined, dev, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.body).toMatchObject(errorShape('method_not_allowed'));
    const badJson = await post(plane.url, rpcPath('agents.list'), undefined, dev, { rawBody: '{"oops"' });
    expect(badJson.status).toBe(400);
    expect(badJson.body).toMatchObject(errorShape('invalid_argument'));
    const array = await post(plane.url, rpcPath('agents.list'), undefined, dev, { rawBody: '[]' });
    expect(array.status).toBe(400);
    const huge = await post(plane.url, rpcPath('secrets.create'), undefined, dev, {
      rawBody: JSON.stringify({ name: 'big', value: 'x'.repeat(MAX_BODY_BYTES) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject(errorShape('payload_too_large'));
  });

  it.each([
    ['no credential', null],
    ['unknown key', 'svc_dev_0000000000000000'],
    ['malformed authorization', 'not a key with spaces'],
  ])('401 for %s', async (_name, credential) => {
    const answer = await call(plane.url, 'agents.list', {}, credential);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject(errorShape('unauthenticated'));
  });

  it('401 for revoked and expired keys', async () => {
    const made = await call(plane.url, 'apiKeys.create', { key: { name: 'tmp', scopes: ['read'] } }, dev);
    expect((await call(plane.url, 'agents.list', {}, made.body.token)).status).toBe(200);
    await call(plane.url, 'apiKeys.revoke', { id: made.body.key.id }, dev);
    const revoked = await call(plane.url, 'agents.list', {}, made.body.token);
    expect(revoked.status).toBe(401);
    // Revoked and unknown keys get the same answer: a guesser learns nothing from the difference.
    const unknown = await call(plane.url, 'agents.list', {}, `svc_dev_${'0'.repeat(48)}`);
    expect(revoked.body).toEqual(unknown.body);
    expect(revoked.body.error.message).toMatch(/unknown or revoked/);

    const expiresAt = new Date(Date.now() + 400).toISOString();
    const expired = await call(plane.url, 'apiKeys.create', { key: { name: 'old', scopes: ['read'], expiresAt } }, dev);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now() + 50)));
    const answer = await call(plane.url, 'agents.list', {}, expired.body.token);
    expect(answer.status).toBe(401);
    expect(answer.body.error.message).toMatch(/expired/);
  });

  it('403 for a read-only key on a control operation, and a control-only key on a read operation', async () => {
    const write = await call(plane.url, 'secrets.create', { name: 'X', value: 'y' }, readOnly);
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: { code: 'permission_denied', details: { requiredScope: 'control' } } });
    const read = await call(plane.url, 'secrets.list', {}, controlOnly);
    expect(read.status).toBe(403);
    expect(read.body).toMatchObject({ error: { code: 'permission_denied', details: { requiredScope: 'read' } } });
    expect((await call(plane.url, 'secrets.list', {}, readOnly)).status).toBe(200);
    expect((await call(plane.url, 'secrets.create', { name: 'BY_CONTROL', value: 'y' }, controlOnly)).status).toBe(200);
  });

  it('a key sees only its own environment; tenancy headers are ignored with a key', async () => {
    const devAgent = await call(plane.url, 'agents.upsert', { slug: 'only-dev', definition: MINIMAL_DEFINITION }, dev);
    expect(devAgent.status).toBe(200);
    expect((await call(plane.url, 'agents.get', { slug: 'only-dev' }, prod)).status).toBe(404);
    expect((await call(plane.url, 'agents.list', {}, prod)).body.map((a: { slug: string }) => a.slug)).not.toContain('only-dev');
    const secret = (await call(plane.url, 'secrets.create', { name: 'DEV_ONLY', value: 'v' }, dev)).body;
    expect((await call(plane.url, 'secrets.delete', { id: secret.id }, prod)).status).toBe(404);
    expect((await call(plane.url, 'secrets.list', {}, dev)).body.map((s: { name: string }) => s.name)).toContain('DEV_ONLY');

    // The environment header does not move a key to another environment.
    const response = await fetch(`${plane.url}${rpcPath('agents.list')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${prod}`, 'x-svc-environment': 'dev', 'content-type': 'application/json' },
      body: '{}',
    });
    const agents = (await response.json()) as Array<{ slug: string }>;
    expect(agents.map((a) => a.slug)).not.toContain('only-dev');
    // Organization-level operations answer the same from either environment.
    expect((await call(plane.url, 'environments.get', { slug: 'dev' }, prod)).body.slug).toBe('dev');
  });

  it("session cookies: minted by /dev/cookie from a key, acting in that key's environment", async () => {
    expect((await post(plane.url, '/dev/cookie', {}, readOnly)).status).toBe(403);
    const minted = await post(plane.url, '/dev/cookie', {}, dev);
    expect(minted.status).toBe(200);
    const cookie = minted.body.cookie as string;
    expect(cookie).toMatch(/^agentform_session=[0-9a-f]+$/);
    expect(Date.parse(minted.body.expiresAt) - Date.now()).toBeLessThanOrEqual(8 * 3_600_000);

    const org = (await call(plane.url, 'organizations.get', undefined, dev)).body;
    expect((await call(plane.url, 'organizations.get', undefined, { cookie })).body.id).toBe(org.id);
    expect((await call(plane.url, 'organizations.get', undefined, { cookie, organization: org.id })).status).toBe(200);
    expect((await call(plane.url, 'organizations.get', undefined, { cookie, organization: 'other-org' })).status).toBe(403);

    // The cookie acts in its key's environment; naming another one is refused, not obeyed.
    const noHeader = await call(plane.url, 'agents.list', {}, { cookie });
    expect(noHeader.body.map((a: { slug: string }) => a.slug)).toContain('only-dev');
    const inDev = await call(plane.url, 'agents.list', {}, { cookie, organization: 'local', environment: 'dev' });
    expect(inDev.body.map((a: { slug: string }) => a.slug)).toContain('only-dev');
    const inProd = await call(plane.url, 'agents.list', {}, { cookie, organization: 'local', environment: 'prod' });
    expect(inProd.status).toBe(403);
    expect(inProd.body.error.message).toContain('bound to environment dev');
    // It has its key's control scope too.
    expect((await call(plane.url, 'secrets.create', { name: 'FROM_COOKIE', value: 'v' }, { cookie, environment: 'dev' })).status).toBe(200);
    expect((await call(plane.url, 'agents.list', {}, { cookie: 'agentform_session=forged' })).status).toBe(401);
  });

  it('never returns a token, secret, grant token or provider secret', async () => {
    const values = ['grant-access-token-xyz', 'provider-secret-xyz', 'secret-value-xyz'];
    const connection = (await call(plane.url, 'connections.create', { name: 'leaky', auth: { type: 'bearer', token: 'auth-token-xyz' } }, dev)).body;
    expect(connection.auth).toEqual({ type: 'bearer' });
    await call(
      plane.url,
      'connections.grants.import',
      { connectionId: connection.id, mode: 'skip_existing', grants: [{ identity: { scope: 'user', id: 'a' }, accessToken: values[0] }] },
      dev,
    );
    await call(plane.url, 'providers.create', { name: 'leaky', type: 'openai', secret: values[1] }, dev);
    await call(plane.url, 'secrets.create', { name: 'LEAKY', value: values[2] }, dev);
    const everything = await Promise.all(
      ['connections.list', 'connections.grants.list', 'providers.list', 'secrets.list', 'apiKeys.list'].map((rpc) => call(plane.url, rpc, {}, dev)),
    );
    const text = everything.map((a) => a.text).join('\n');
    for (const value of [...values, 'auth-token-xyz', dev, prod]) expect(text).not.toContain(value);
  });
});
