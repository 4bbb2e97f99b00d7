// Regression tests: the local control plane never sends traffic off this machine unless told to;
// new local environments get the kind the project declares; key prefixes tell keys apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINIMAL_DEFINITION, call, post, startServer, waitFor } from './helpers.js';

describe('outbound traffic from the local control plane', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  let token: string;
  beforeAll(async () => {
    plane = await startServer();
    token = plane.tokens.dev as string;
    await call(plane.url, 'agents.upsert', { slug: 'bot', definition: MINIMAL_DEFINITION }, token);
  });
  afterAll(() => plane.cleanup());

  it('refuses connections.test against a tool server that is not on this machine', async () => {
    const created = await call(plane.url, 'connections.create', { name: 'crm', url: 'https://crm.example.com/mcp', auth: { type: 'none' } }, token);
    const tested = await call(plane.url, 'connections.test', { id: created.body.id }, token);
    expect(tested.status).toBe(409);
    expect(tested.body.error.code).toBe('failed_precondition');
    expect(tested.body.error.message).toContain('only servers on this machine');
    expect(tested.body.error.message).toContain('crm.example.com');
  });

  it('refuses providers.models against a remote baseUrl', async () => {
    await call(plane.url, 'providers.create', { name: 'remote', type: 'openai', baseUrl: 'https://llm.example.com/v1' }, token);
    const models = await call(plane.url, 'providers.models', { name: 'remote' }, token);
    expect(models.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(models.body)).toContain('only servers on this machine');
  });

  it('fails a hook delivery to a remote receiver without sending it', async () => {
    await call(
      plane.url,
      'connections.create',
      { name: 'remote-hooks', auth: { type: 'none' }, hooksUrl: 'https://hooks.example.com/in', hookEvents: ['remote.event'] },
      token,
    );
    const sim = await post(plane.url, '/dev/sessions/simulate', { agent: 'bot', events: ['remote.event'] }, token);
    const id = sim.body.deliveries[0] as string;
    const dead = await waitFor(async () =>
      ((await post(plane.url, '/dev/hooks/deliveries', {}, token)).body as Array<{ id: string; status: string; lastError: string | null }>).find(
        (d) => d.id === id && d.status === 'dead',
      ),
    );
    expect(dead.lastError).toContain('only servers on this machine');
  });
});

describe('bootstrap of local environments', () => {
  it('creates a new environment with the kind it is given', async () => {
    const plane = await startServer({ environments: ['dev', { slug: 'production', kind: 'production' }] });
    try {
      const production = await call(plane.url, 'environments.get', { slug: 'production' }, plane.tokens.production as string);
      expect(production.body.kind).toBe('production');
      const dev = await call(plane.url, 'environments.get', { slug: 'dev' }, plane.tokens.dev as string);
      expect(dev.body.kind).not.toBe('production');
    } finally {
      await plane.cleanup();
    }
  });
});

describe('API key prefixes', () => {
  it('hold part of the secret, so two keys of one environment have different prefixes', async () => {
    const plane = await startServer();
    try {
      const token = plane.tokens.dev as string;
      const a = await call(plane.url, 'apiKeys.create', { key: { name: 'a', scopes: ['read'] } }, token);
      const b = await call(plane.url, 'apiKeys.create', { key: { name: 'b', scopes: ['read'] } }, token);
      expect(a.body.key.prefix).not.toBe(b.body.key.prefix);
      expect(a.body.token.startsWith(a.body.key.prefix)).toBe(true);
      expect(a.body.key.prefix).toMatch(/^svc_dev_[0-9a-f]{8}$/);
    } finally {
      await plane.cleanup();
    }
  });
});
