// Request fuzzing of the local control plane (fast-check, fixed seed, bounded runs): random JSON,
// mutated valid requests and broken text for every operation never produce a 5xx or an internal
// error, oversized bodies get 413, and the server still answers afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationPath, RPC_NAMES } from '../../src/api/operations.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { MAX_BODY_BYTES } from '../../src/server/http.js';
import { MAX_JSON_DEPTH } from '../../src/server/request-body.js';
import { bearer, callRpc, populateDev, SAMPLE_REQUESTS, send, type DevObjects } from './requests.js';

const SEED = 20_261_123;
const RUNS_PER_OPERATION = 20;

type Json = ReturnType<typeof JSON.parse>;

/** Replaces, drops or adds one field somewhere in a valid request. */
function mutate(sample: Json, pick: number, replacement: Json, how: 'replace' | 'drop' | 'add'): Json {
  const objects: Array<Record<string, Json>> = [];
  const walk = (value: Json): void => {
    if (value !== null && typeof value === 'object') {
      if (!Array.isArray(value)) objects.push(value as Record<string, Json>);
      for (const inner of Object.values(value as object)) walk(inner);
    }
  };
  const copy = structuredClone(sample ?? {}) as Json;
  walk(copy);
  const target = objects[pick % Math.max(1, objects.length)];
  if (!target) return replacement;
  const keys = Object.keys(target);
  const key = keys.length > 0 ? keys[pick % keys.length]! : 'extra';
  if (how === 'drop') delete target[key];
  else if (how === 'add') target[`${key}_extra`] = replacement;
  else target[key] = replacement;
  return copy;
}

const BROKEN_TEXT = ['{', '{"a":', 'null', '[]', '"text"', '1e999', '{"__proto__":{"polluted":true}}', '\u0000', '{"a":"\ud800"}', ' '.repeat(10)];

describe('request fuzzing', () => {
  let plane: LocalControlPlane;
  let dataDir: string;
  let dev: DevObjects;
  const internalErrors: unknown[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agentform-fuzz-'));
    plane = await startLocalControlPlane({
      dataDir,
      environments: ['dev', 'prod'],
      bakeMs: 10,
      hookRetry: { maxAttempts: 1 },
      devEndpoints: true,
      onInternalError: (error) => internalErrors.push(error),
    });
    dev = await populateDev(plane.url, plane.tokens.dev!);
  });
  afterAll(async () => {
    await plane?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(RPC_NAMES)('%s: random and mutated bodies never give a 5xx', async (rpc) => {
    const sample = SAMPLE_REQUESTS[rpc](dev) as Json;
    const body = fc.oneof(
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc
        .tuple(fc.nat(), fc.jsonValue(), fc.constantFrom('replace' as const, 'drop' as const, 'add' as const))
        .map(([pick, value, how]) => JSON.stringify(mutate(sample, pick, value, how))),
      fc.constantFrom(...BROKEN_TEXT),
      fc.string({ maxLength: 200 }),
    );
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const answer = await send(plane.url, operationPath(rpc), text, bearer(plane.tokens.dev!));
        requests += 1;
        return answer.status < 500;
      }),
      { seed: SEED, numRuns: RUNS_PER_OPERATION },
    );
    expect(internalErrors).toEqual([]);
    expect(requests).toBeGreaterThanOrEqual(RUNS_PER_OPERATION);
  });

  it.each(RPC_NAMES)('%s: nested and __proto__ bodies get a 400 or are handled, never a 5xx', async (rpc) => {
    const sample = JSON.stringify(SAMPLE_REQUESTS[rpc](dev) ?? {});
    // The valid sample plus one field nested `depth` arrays or objects deep (so the body is depth + 1 deep).
    const nestedBody = fc.tuple(fc.integer({ min: 1, max: 6_000 }), fc.boolean()).map(([depth, objects]) => {
      const value = objects ? `${'{"n":'.repeat(depth)}0${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
      return { depth, text: `{"fuzz":${value}${sample === '{}' ? '}' : `,${sample.slice(1)}`}` };
    });
    // A `__proto__` key put in at a random object of the valid sample.
    const protoBody = fc.tuple(fc.nat(), fc.jsonValue()).map(([pick, value]) => {
      const braces = [...sample.matchAll(/\{/g)].map((m) => m.index);
      const at = braces[pick % braces.length]! + 1;
      const rest = sample.slice(at);
      return `${sample.slice(0, at)}"__proto__":${JSON.stringify(value)}${rest.startsWith('}') ? '' : ','}${rest}`;
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(nestedBody, protoBody), async (body) => {
        const text = typeof body === 'string' ? body : body.text;
        const answer = await send(plane.url, operationPath(rpc), text, bearer(plane.tokens.dev!));
        if (typeof body === 'string') return answer.status === 400 && answer.text.includes('__proto__');
        // Deeper than the cap: always a 400 saying so; within it, anything but a 5xx.
        if (body.depth + 1 > MAX_JSON_DEPTH) return answer.status === 400 && answer.text.includes('nests deeper');
        return answer.status < 500;
      }),
      { seed: SEED, numRuns: RUNS_PER_OPERATION },
    );
    expect(internalErrors).toEqual([]);
  });

  it('dev endpoints: random bodies never give a 5xx', async () => {
    for (const path of ['/dev/sessions/simulate', '/dev/cookie', '/dev/hooks/deliveries']) {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue().map((v) => JSON.stringify(v)),
            fc.constantFrom(...BROKEN_TEXT),
            fc.record({ agent: fc.constant(dev.agentSlug), pending: fc.integer(), events: fc.array(fc.string()) }).map((v) => JSON.stringify(v)),
          ),
          async (text) => (await send(plane.url, path, text, bearer(plane.tokens.dev!))).status < 500,
        ),
        { seed: SEED, numRuns: RUNS_PER_OPERATION },
      );
    }
    expect(internalErrors).toEqual([]);
  });

  it.each(RPC_NAMES)('%s: an oversized body gets 413', async (rpc) => {
    const answer = await send(plane.url, operationPath(rpc), `{"pad":"${'x'.repeat(MAX_BODY_BYTES)}"}`, bearer(plane.tokens.dev!));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'payload_too_large' } });
  });

  it('an oversized body without a content-length (chunked) gets 413', async () => {
    const chunks = (async function* () {
      for (let sent = 0; sent <= MAX_BODY_BYTES; sent += 64 * 1024) yield Buffer.alloc(64 * 1024, 0x61);
    })();
    const { request } = await import('undici');
    const response = await request(`${plane.url}${operationPath('secrets.create')}`, {
      method: 'POST',
      headers: { ...bearer(plane.tokens.dev!), 'content-type': 'application/json' },
      body: Readable.from(chunks),
    }).catch((error: unknown) => error);
    // The server answers 413 and closes; the client may see the answer or the reset mid-upload.
    if (response instanceof Error) expect(response.message).toMatch(/closed|reset|EPIPE|socket/i);
    else expect((response as { statusCode: number }).statusCode).toBe(413);
  });

  it('still answers afterwards', async () => {
    const org = await callRpc(plane.url, 'organizations.get', undefined, bearer(plane.tokens.dev!));
    expect(org.status).toBe(200);
    const agents = await callRpc(plane.url, 'agents.list', {}, bearer(plane.tokens.dev!));
    expect(agents.status).toBe(200);
    expect(internalErrors).toEqual([]);
  });
});
