// Strict input of the local control plane (issue 16): the credential is checked before the body
// is read, bodies must be declared JSON (415), valid UTF-8, at most MAX_JSON_DEPTH deep, free of
// `__proto__` keys and within the documented field limits; keys cannot be created already
// expired; moving a provider's baseUrl needs its secret again; dev endpoints are off by default.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationPath } from '../../src/api/operations.js';
import { MAX_BODY_BYTES } from '../../src/server/http.js';
import { MAX_JSON_DEPTH } from '../../src/server/request-body.js';
import { AUTH_STRING_LIMIT, DEFAULT_STRING_LIMIT, FIELD_LIMITS, KEY_LIMIT } from '../../src/server/string-limits.js';
import { canonicalJson } from '../../src/server/util.js';
import { call, MINIMAL_DEFINITION, startServer } from '../server/helpers.js';

interface Raw {
  status: number;
  json: { error?: { code: string; message: string; details?: unknown } } & Record<string, unknown>;
}

/** POSTs exactly these bytes with exactly these headers. */
async function raw(url: string, path: string, body: Buffer | string | undefined, headers: Record<string, string>): Promise<Raw> {
  const response = await request(`${url}${path}`, { method: 'POST', headers, body }).catch((error: unknown) => error as Error);
  if (response instanceof Error) throw response;
  const text = await response.body.text();
  return { status: response.statusCode, json: text ? (JSON.parse(text) as Raw['json']) : {} };
}

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('strict input', () => {
  let plane: Awaited<ReturnType<typeof startServer>>;
  let token: string;
  let auth: Record<string, string>;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    plane = await startServer({ environments: ['dev'] });
    token = plane.tokens.dev!;
    auth = { authorization: `Bearer ${token}` };
  });
  afterAll(async () => plane?.cleanup());

  describe('the credential comes first', () => {
    it.each([
      ['bad JSON', '{"oops'],
      ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
      ['a body nested 10,000 deep', nested(10_000)],
      ['no content type', '{}'],
    ] as const)('401, not 400/415, without a credential and with %s', async (_label, body) => {
      const answer = await raw(plane.url, operationPath('secrets.create'), body, _label === 'no content type' ? {} : json);
      expect(answer.status).toBe(401);
      expect(answer.json.error?.code).toBe('unauthenticated');
    });

    it('401 without a credential for a 2 MiB body (never read)', async () => {
      const answer = await raw(plane.url, operationPath('secrets.create'), `{"value":"${'x'.repeat(2 * 1024 * 1024)}"}`, json);
      expect(answer.status).toBe(401);
    });

    it('403 for a read-only key before its body is looked at', async () => {
      const readOnly = (await call(plane.url, 'apiKeys.create', { key: { name: 'ro', scopes: ['read'] } }, token)).body.token as string;
      const answer = await raw(plane.url, operationPath('secrets.create'), '{"oops', { ...json, authorization: `Bearer ${readOnly}` });
      expect(answer.status).toBe(403);
    });
  });

  describe('content type', () => {
    it.each([
      ['text/plain', 'text/plain'],
      ['a form', 'application/x-www-form-urlencoded'],
      ['multipart', 'multipart/form-data; boundary=x'],
      ['another charset', 'application/json; charset=latin1'],
      ['JSON-like', 'application/jsonx'],
    ])('415 for %s', async (_label, type) => {
      const answer = await raw(plane.url, operationPath('secrets.create'), JSON.stringify({ name: 'CT', value: 'v' }), { ...auth, 'content-type': type });
      expect(answer.status).toBe(415);
      expect(answer.json.error).toMatchObject({ code: 'unsupported_media_type', message: expect.stringContaining('application/json') });
    });

    it('415 for a body without a content type, and for a control operation sent with no body at all', async () => {
      expect((await raw(plane.url, operationPath('secrets.create'), JSON.stringify({ name: 'CT', value: 'v' }), auth)).status).toBe(415);
      expect((await raw(plane.url, operationPath('hooks.redeliverAll'), undefined, auth)).status).toBe(415);
      expect((await call(plane.url, 'secrets.list', {}, token)).body.map((s: { name: string }) => s.name)).not.toContain('CT');
    });

    it('accepts application/json in any case, with charset utf-8; a read with no body needs none', async () => {
      for (const type of ['application/json', 'Application/JSON; charset=UTF-8', 'application/json;charset="utf-8"']) {
        expect((await raw(plane.url, operationPath('secrets.list'), '{}', { ...auth, 'content-type': type })).status, type).toBe(200);
      }
      expect((await raw(plane.url, operationPath('organizations.get'), undefined, auth)).status).toBe(200);
    });

    it('a cookie-authenticated request from another local page (text/plain, the only kind a browser sends unasked) is refused', async () => {
      const cookie = (await raw(plane.url, '/dev/cookie', '{}', { ...auth, ...json })).json.cookie as string;
      const forged = await raw(plane.url, operationPath('secrets.create'), JSON.stringify({ name: 'CSRF', value: 'v' }), {
        cookie,
        'content-type': 'text/plain;charset=UTF-8',
      });
      expect(forged.status).toBe(415);
      expect((await call(plane.url, 'secrets.list', {}, token)).body.map((s: { name: string }) => s.name)).not.toContain('CSRF');
    });
  });

  describe('body', () => {
    it('400 for invalid UTF-8 and for unpaired surrogates', async () => {
      const invalid = await raw(
        plane.url,
        operationPath('secrets.create'),
        Buffer.concat([Buffer.from('{"name":"U","value":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
        { ...auth, ...json },
      );
      expect(invalid.status).toBe(400);
      expect(invalid.json.error?.message).toContain('UTF-8');
      const surrogate = await raw(plane.url, operationPath('secrets.create'), '{"name":"U","value":"\\ud800"}', { ...auth, ...json });
      expect(surrogate.status).toBe(400);
      expect(surrogate.json.error?.details).toEqual({ field: 'value' });
    });

    it(`nesting: ${MAX_JSON_DEPTH} levels pass the depth check, one more (or 100,000) is a 400, and the store stays exportable`, async () => {
      const at = (depth: number): Promise<Raw> => raw(plane.url, operationPath('secrets.list'), nested(depth), { ...auth, ...json });
      expect((await at(MAX_JSON_DEPTH)).json.error?.message).not.toContain('nests deeper'); // a 400 for not being an object
      for (const depth of [MAX_JSON_DEPTH + 1, 4_200, 100_000]) {
        const answer = await at(depth);
        expect(answer.status, String(depth)).toBe(400);
        expect(answer.json.error?.message).toContain(`deeper than ${MAX_JSON_DEPTH}`);
      }
      // A deep definition (it used to be stored, then broke agents.list and export) is refused.
      const deep = `${'{"d":'.repeat(5_000)}"leaf"${'}'.repeat(5_000)}`;
      const text = JSON.stringify({ slug: 'deep', definition: { ...MINIMAL_DEFINITION, metadata: 'DEEP' } }).replace('"DEEP"', deep);
      const upsert = await raw(plane.url, operationPath('agents.upsert'), text, { ...auth, ...json });
      expect(upsert.status).toBe(400);
      expect((await call(plane.url, 'agents.list', {}, token)).status).toBe(200);
      // Strings with brackets do not count as nesting.
      expect((await call(plane.url, 'secrets.create', { name: 'BRACKETS', value: '['.repeat(1_000) }, token)).status).toBe(200);
    });

    it('400 for a __proto__ key anywhere, so a changed upsert is never answered with the old version', async () => {
      expect((await call(plane.url, 'agents.upsert', { slug: 'proto', definition: MINIMAL_DEFINITION }, token)).body.version).toBe(1);
      const text = JSON.stringify({ slug: 'proto', definition: MINIMAL_DEFINITION }).replace(
        '"policies":{}',
        '"policies":{"__proto__":{"toolCalls":{"default":"deny"}}}',
      );
      const answer = await raw(plane.url, operationPath('agents.upsert'), text, { ...auth, ...json });
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ code: 'invalid_argument', details: { field: 'definition.policies.__proto__' } });
      expect((await call(plane.url, 'agents.get', { slug: 'proto' }, token)).body.version).toBe(1);
      // And the definition hash itself tells a __proto__ key apart (null-prototype objects).
      expect(canonicalJson(JSON.parse('{"a":{"__proto__":{"x":1}}}'))).not.toBe(canonicalJson({ a: {} }));
    });

    it.each(Object.entries(FIELD_LIMITS))('%s: at most %i characters, wherever it appears', async (field, limit) => {
      const at = (length: number) =>
        call(
          plane.url,
          'agents.upsert',
          {
            slug: `limit-${field.toLowerCase()}`,
            definition: { ...MINIMAL_DEFINITION, [field]: 'n'.repeat(length), tools: [{ type: 'builtin', name: 'current_time' }] },
          },
          token,
        );
      expect((await at(limit)).status).toBe(200);
      const over = await at(limit + 1);
      expect(over.status).toBe(400);
      expect(over.body.error).toMatchObject({
        details: { field: `definition.${field}`, maxLength: limit },
        message: expect.stringContaining(`at most ${limit} characters`),
      });
      if (field === 'name') {
        const secret = await call(plane.url, 'secrets.create', { name: 'S'.repeat(limit + 1), value: 'v' }, token);
        expect(secret.body.error.details).toEqual({ field: 'name', maxLength: limit });
      }
    });

    // Strings the table does not name, items of an array, free auth fields and property names.
    it.each([
      [
        'a model name (the default)',
        'definition.model.model',
        DEFAULT_STRING_LIMIT,
        (s: string) => ({ slug: 'lim', definition: { ...MINIMAL_DEFINITION, model: { provider: 'anthropic', model: s } } }),
      ],
      [
        'an image step (an array item)',
        'definition.sandbox.image.steps[1]',
        FIELD_LIMITS.steps!,
        (s: string) => ({ slug: 'lim', definition: { ...MINIMAL_DEFINITION, sandbox: { image: { steps: ['RUN true', s] } } } }),
      ],
      ['a prompt', 'definition.system', FIELD_LIMITS.system!, (s: string) => ({ slug: 'lim', definition: { ...MINIMAL_DEFINITION, system: s } })],
    ] as const)('agents.upsert: %s', async (_label, field, limit, body) => {
      expect((await call(plane.url, 'agents.upsert', body('p'.repeat(limit)), token)).status).toBe(200);
      const over = await call(plane.url, 'agents.upsert', body('p'.repeat(limit + 1)), token);
      expect(over.status).toBe(400);
      expect(over.body.error).toMatchObject({ code: 'invalid_argument', details: { field, maxLength: limit } });
    });

    it.each([
      ['secrets.create', 'value', FIELD_LIMITS.value!, (s: string) => ({ name: 'LIMITED', value: s })],
      ['connections.create', 'auth.token', AUTH_STRING_LIMIT, (s: string) => ({ name: 'limited', auth: { type: 'bearer', token: s } })],
      [
        'connections.create',
        'url',
        FIELD_LIMITS.url!,
        (s: string) => ({ name: 'limited-url', url: `https://example.com/${s.slice(20)}`, auth: { type: 'none' } }),
      ],
    ] as const)('%s: %s', async (rpc, field, limit, body) => {
      const over = await call(plane.url, rpc, body('v'.repeat(limit + 1)), token);
      expect(over.status).toBe(400);
      expect(over.body.error).toMatchObject({
        code: 'invalid_argument',
        details: { field, maxLength: limit },
        message: expect.stringContaining(`${field}: must be at most ${limit} characters`),
      });
      expect((await call(plane.url, rpc, body('v'.repeat(limit)), token)).status).toBe(200);
    });

    it(`refuses a property name longer than ${KEY_LIMIT} characters, naming the object`, async () => {
      const byTool = { ['t'.repeat(KEY_LIMIT + 1)]: 'deny' };
      const over = await call(plane.url, 'agents.upsert', { slug: 'lim', definition: { ...MINIMAL_DEFINITION, policies: { toolCalls: { byTool } } } }, token);
      expect(over.status).toBe(400);
      expect(over.body.error).toMatchObject({ details: { field: 'definition.policies.toolCalls.byTool', maxLength: KEY_LIMIT } });
    });
  });

  it('refuses a key created already expired', async () => {
    const answer = await call(plane.url, 'apiKeys.create', { key: { name: 'stale', scopes: ['read'], expiresAt: '2001-01-01T00:00:00Z' } }, token);
    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual({ field: 'key.expiresAt' });
    expect((await call(plane.url, 'apiKeys.list', {}, token)).body.map((k: { name: string }) => k.name)).not.toContain('stale');
  });
});

describe('a provider secret goes only to the endpoint it was given for', () => {
  const servers: Server[] = [];
  let plane: Awaited<ReturnType<typeof startServer>>;
  afterAll(async () => {
    await plane?.cleanup();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function endpoint(): Promise<{ url: string; seen: string[] }> {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '(none)');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":[{"id":"m"}]}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }

  it('moving baseUrl without the secret is refused; with it, only the new secret reaches the new endpoint', async () => {
    plane = await startServer();
    const token = plane.tokens.dev!;
    const honest = await endpoint();
    const attacker = await endpoint();
    const created = await call(plane.url, 'providers.create', { name: 'p', type: 'openai', baseUrl: honest.url, secret: 'original-secret' }, token);
    expect((await call(plane.url, 'providers.models', { name: 'p' }, token)).status).toBe(200);
    expect(honest.seen).toEqual(['Bearer original-secret']);

    const moved = await call(plane.url, 'providers.update', { id: created.body.id, baseUrl: attacker.url }, token);
    expect(moved.status).toBe(400);
    expect(moved.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'secret' } });
    expect((await call(plane.url, 'providers.list', {}, token)).body[0].baseUrl).toBe(honest.url);
    // Other changes (or the same baseUrl) keep the stored secret.
    expect((await call(plane.url, 'providers.update', { id: created.body.id, baseUrl: honest.url, name: 'p' }, token)).status).toBe(200);

    expect((await call(plane.url, 'providers.update', { id: created.body.id, baseUrl: attacker.url, secret: 'new-secret' }, token)).status).toBe(200);
    await call(plane.url, 'providers.models', { name: 'p' }, token);
    expect(attacker.seen).toEqual(['Bearer new-secret']);

    // "" clears it: the next endpoint gets no secret at all.
    const cleared = await call(plane.url, 'providers.update', { id: created.body.id, baseUrl: honest.url, secret: '' }, token);
    expect(cleared.body.hasSecret).toBe(false);
    await call(plane.url, 'providers.models', { name: 'p' }, token);
    expect(honest.seen).toEqual(['Bearer original-secret', '(none)']);
    // With no secret stored, moving needs none.
    expect((await call(plane.url, 'providers.update', { id: created.body.id, baseUrl: attacker.url }, token)).status).toBe(200);
  });
});

describe('dev endpoints', () => {
  it.each(['/dev/cookie', '/dev/sessions/simulate', '/dev/tools/call', '/dev/hooks/deliveries'])(
    '%s is off (404) unless the server is started with them',
    async (path) => {
      const plane = await startServer({ devEndpoints: false });
      try {
        const answer = await raw(plane.url, path, '{}', { authorization: `Bearer ${plane.tokens.dev}`, 'content-type': 'application/json' });
        expect(answer.status).toBe(404);
        expect(answer.json.error?.message).toContain('--dev-endpoints');
      } finally {
        await plane.cleanup();
      }
    },
  );
});

// Keep the body-size limit honest next to these tests: an authenticated oversized body is still 413.
it('an authenticated body over the limit is 413', async () => {
  const plane = await startServer();
  try {
    const answer = await raw(plane.url, operationPath('secrets.create'), `{"value":"${'x'.repeat(MAX_BODY_BYTES)}"}`, {
      authorization: `Bearer ${plane.tokens.dev}`,
      'content-type': 'application/json',
    });
    expect(answer.status).toBe(413);
  } finally {
    await plane.cleanup();
  }
});
