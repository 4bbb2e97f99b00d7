// Agent versions, server-filled defaults and image baking.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS, fillDefaults } from '../../src/server/defaults.js';
import { call, MINIMAL_DEFINITION, sleep, startServer } from './helpers.js';

describe('fillDefaults', () => {
  it.each([
    ['fills an omitted field', { a: 1 }, { a: 2, b: 'x' }, { a: 1, b: 'x' }],
    ['recurses into objects', { o: { x: 1 } }, { o: { x: 0, y: 2 } }, { o: { x: 1, y: 2 } }],
    ['keeps falsy values as sent', { n: 0, s: '', f: false, z: null }, { n: 5, s: 'd', f: true, z: 'd' }, { n: 0, s: '', f: false, z: null }],
    ['never merges arrays', { list: ['a'] }, { list: ['b', 'c'] }, { list: ['a'] }],
    ['copies defaults (no shared arrays)', {}, { list: ['b'] }, { list: ['b'] }],
  ])('%s', (_name, value, defaults, expected) => {
    expect(fillDefaults(value, defaults)).toEqual(expected);
  });

  it('fills sandbox defaults only when a sandbox is present', () => {
    expect(fillDefaults({ ...MINIMAL_DEFINITION }, DEFAULTS.agentDefinition)).not.toHaveProperty('sandbox');
    const filled = fillDefaults({ ...MINIMAL_DEFINITION, sandbox: { provider: 'e2b' } }, DEFAULTS.agentDefinition) as { sandbox: Record<string, unknown> };
    expect(filled.sandbox).toMatchObject({ provider: 'e2b', scope: 'tree', network: { egress: { mode: 'unrestricted' } } });
  });

  it('does not mutate its input or the defaults table', () => {
    const input = { policies: {} };
    const before = JSON.stringify(DEFAULTS);
    const out = fillDefaults(input, DEFAULTS.agentDefinition) as unknown as { subagents: unknown[] };
    out.subagents.push('x');
    expect(input).toEqual({ policies: {} });
    expect(JSON.stringify(DEFAULTS)).toBe(before);
  });

  it('gives every fill its own deep copy of a default array of objects', () => {
    const defaults = { rules: [{ match: ['a'], then: { allow: true } }] };
    const first = fillDefaults({}, defaults) as typeof defaults;
    const second = fillDefaults({}, defaults) as typeof defaults;
    first.rules[0]!.match.push('b');
    first.rules[0]!.then.allow = false;
    expect(second).toEqual({ rules: [{ match: ['a'], then: { allow: true } }] });
    expect(defaults).toEqual({ rules: [{ match: ['a'], then: { allow: true } }] });
  });
});

describe('agents over HTTP', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  let token: string;
  const upsert = (slug: string, definition: object, extra: object = {}) => call(plane.url, 'agents.upsert', { slug, definition, ...extra }, token);

  beforeAll(async () => {
    plane = await startServer({ bakeMs: 150 });
    token = plane.tokens.dev!;
  });
  afterAll(async () => plane?.cleanup());

  it('stores and returns the filled definition', async () => {
    const { body } = await upsert('filled', MINIMAL_DEFINITION);
    expect(body.definition).toMatchObject({
      description: '',
      model: { provider: 'anthropic', model: 'claude-sonnet', reasoning: 'none' },
      toolLoading: { mode: 'eager', autoThreshold: 20 },
      compaction: { mode: 'auto', thresholdPercent: 80 },
      policies: { toolCalls: { default: 'allow' }, decisions: { expiresInSeconds: 300, onExpire: 'deny' } },
      overrides: { system: 'none' },
      identity: { required: false },
    });
    expect(body.definition).not.toHaveProperty('sandbox');
    // A value the request set wins over the default.
    const custom = await upsert('custom', { ...MINIMAL_DEFINITION, description: 'mine', model: { ...MINIMAL_DEFINITION.model, reasoning: 'high' } });
    expect(custom.body.definition).toMatchObject({ description: 'mine', model: { reasoning: 'high' } });
  });

  it('version N+1 only when the filled definition changes', async () => {
    const v1 = (await upsert('versioned', MINIMAL_DEFINITION)).body;
    expect(v1.version).toBe(1);
    const same = (await upsert('versioned', MINIMAL_DEFINITION)).body;
    expect(same).toMatchObject({ version: 1, agentId: v1.agentId, createdAt: v1.createdAt });
    // Spelling out a default is the same filled definition: still no new version.
    const explicit = (await upsert('versioned', { ...MINIMAL_DEFINITION, description: '', toolLoading: { mode: 'eager' } })).body;
    expect(explicit.version).toBe(1);
    const v2 = (await upsert('versioned', { ...MINIMAL_DEFINITION, system: 'You help, briefly.' })).body;
    expect(v2).toMatchObject({ version: 2, agentId: v1.agentId });
    const back = (await upsert('versioned', MINIMAL_DEFINITION)).body;
    expect(back.version).toBe(3);
    expect((await call(plane.url, 'agents.get', { slug: 'versioned', version: 2 }, token)).body.definition.system).toBe('You help, briefly.');
    expect((await call(plane.url, 'agents.get', { slug: 'versioned' }, token)).body.version).toBe(3);
    expect((await call(plane.url, 'agents.get', { slug: 'versioned', version: 9 }, token)).status).toBe(404);
  });

  it('keeps agentId per slug per environment, and promotedFrom', async () => {
    const promotedFrom = { environmentId: 'env_other', agentId: 'agt_other', version: 4 };
    const promoted = (await upsert('promoted', MINIMAL_DEFINITION, { promotedFrom })).body;
    expect(promoted.promotedFrom).toEqual(promotedFrom);
    expect((await call(plane.url, 'agents.get', { slug: 'promoted' }, token)).body.promotedFrom).toEqual(promotedFrom);
    const other = (await upsert('other-slug', MINIMAL_DEFINITION)).body;
    expect(other.agentId).not.toBe(promoted.agentId);
  });

  it('bakes an image: baking, then ready; failed with an error for an invalid step', async () => {
    const good = (await upsert('baked', { ...MINIMAL_DEFINITION, sandbox: { image: { base: 'node:20', steps: ['npm ci'] } } })).body;
    const bad = (await upsert('broken', { ...MINIMAL_DEFINITION, sandbox: { image: { base: 'node:20', steps: ['npm ci', 'FAIL on purpose'] } } })).body;
    expect(good.image).toMatchObject({ status: 'baking', specHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(bad.image.status).toBe('baking');
    await sleep(200);
    const ready = (await call(plane.url, 'agents.get', { slug: 'baked' }, token)).body.image;
    expect(ready).toMatchObject({ status: 'ready', ref: expect.stringContaining('local/baked@sha256:'), bakedAt: expect.any(String) });
    const failed = (await call(plane.url, 'agents.get', { slug: 'broken' }, token)).body.image;
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('steps[1]') });
    const empty = (await upsert('empty-step', { ...MINIMAL_DEFINITION, sandbox: { image: { steps: ['  '] } } })).body;
    await sleep(200);
    expect((await call(plane.url, 'agents.get', { slug: 'empty-step' }, token)).body.image).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('empty step'),
    });
    expect(empty.version).toBe(1);
  });

  it('delete removes every version; a new upsert starts again at 1', async () => {
    await upsert('gone', MINIMAL_DEFINITION);
    await upsert('gone', { ...MINIMAL_DEFINITION, system: 'two' });
    expect((await call(plane.url, 'agents.delete', { slug: 'gone' }, token)).status).toBe(204);
    expect((await call(plane.url, 'agents.get', { slug: 'gone' }, token)).status).toBe(404);
    expect((await call(plane.url, 'agents.delete', { slug: 'gone' }, token)).status).toBe(404);
    expect((await upsert('gone', MINIMAL_DEFINITION)).body.version).toBe(1);
  });
});
