// One live API key per name and environment on the local control plane (issue 45, item 7): two
// creates at once make one key and a 409; a replacement names the key it replaces; a revoked or
// expired key frees its name; another environment's keys do not count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLACES_KEY_HEADER } from '../../src/api/operations.js';
import { call, rpcPath, startServer } from './helpers.js';

describe('API key names', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  let dev: string;

  beforeAll(async () => {
    plane = await startServer({ environments: ['dev', 'prod'] });
    dev = plane.tokens.dev!;
  });
  afterAll(async () => plane?.cleanup());

  const create = (name: string, token = dev, replaces?: string, expiresAt?: string) =>
    fetch(`${plane.url}${rpcPath('apiKeys.create')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(replaces ? { [REPLACES_KEY_HEADER]: replaces } : {}) },
      body: JSON.stringify({ key: { name, scopes: ['read'], ...(expiresAt ? { expiresAt } : {}) } }),
    }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as { key: { id: string }; error: { code: string; message: string; details: unknown } },
    }));
  const live = async (name: string) =>
    ((await call(plane.url, 'apiKeys.list', {}, dev)).body as Array<{ id: string; name: string; revokedAt: string | null }>).filter(
      (key) => key.name === name && !key.revokedAt,
    );

  it('of two creates at once, one makes the key and the other is refused 409 naming it', async () => {
    const answers = await Promise.all([create('race'), create('race')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const made = answers.find((answer) => answer.status === 200)!.body.key.id;
    const refused = answers.find((answer) => answer.status === 409)!.body.error;
    expect(refused).toMatchObject({ code: 'already_exists', details: { field: 'key.name', id: made } });
    expect(refused.message).toContain('a live key named "race" already exists in this environment');
    expect((await live('race')).map((key) => key.id)).toEqual([made]);
  });

  it('lets a replacement name the live key it replaces, and only that one', async () => {
    const old = (await create('rotated')).body.key.id;
    const replacing = await create('rotated', dev, old);
    expect(replacing.status).toBe(200);
    // A second replacement of the same old key finds the first one's key live.
    expect((await create('rotated', dev, old)).status).toBe(409);
    expect((await live('rotated')).map((key) => key.id).sort()).toEqual([old, replacing.body.key.id].sort());
  });

  it('frees the name of a revoked or expired key; keys of another environment do not count', async () => {
    const revoked = (await create('freed')).body.key.id;
    await call(plane.url, 'apiKeys.revoke', { id: revoked }, dev);
    expect((await create('freed')).status).toBe(200);
    const soon = new Date(Date.now() + 300).toISOString();
    expect((await create('brief', dev, undefined, soon)).status).toBe(200);
    expect((await create('brief')).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await create('brief')).status).toBe(200);
    expect((await create('freed', plane.tokens.prod!)).status).toBe(200);
  });
});
