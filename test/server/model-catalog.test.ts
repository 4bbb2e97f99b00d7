import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { builtInModels, listModels } from '../../src/server/model-catalog.js';

describe('built-in catalog', () => {
  it.each([
    { type: 'openai', includes: ['gpt-4.1', 'gpt-4o-mini', 'o3'], ownedBy: 'openai' },
    { type: 'anthropic', includes: ['claude-sonnet-4-20250514', 'claude-opus-4-1-20250805'], ownedBy: 'anthropic' },
    { type: 'google', includes: ['gemini-2.5-pro', 'gemini-2.5-flash'], ownedBy: 'google' },
    { type: 'gemini', includes: ['gemini-2.5-pro'], ownedBy: 'google' },
    { type: 'mistral', includes: ['mistral-large-latest', 'codestral-latest'], ownedBy: 'mistralai' },
    { type: 'OpenAI', includes: ['gpt-4.1'], ownedBy: 'openai' },
  ])('$type lists its models with limits', async ({ type, includes, ownedBy }) => {
    const models = await listModels({ type });
    expect(models.map((m) => m.id)).toEqual(expect.arrayContaining(includes));
    expect(new Set(models.map((m) => m.id)).size).toBe(models.length);
    for (const model of models) {
      expect(model.ownedBy).toBe(ownedBy);
      expect(model.contextWindow).toBeGreaterThanOrEqual(100_000);
      if (model.maxOutputTokens !== undefined) {
        expect(model.maxOutputTokens).toBeGreaterThan(0);
        expect(model.maxOutputTokens).toBeLessThan(model.contextWindow!);
      }
    }
  });

  it('knows specific limits', async () => {
    const openai = await listModels({ type: 'openai', baseUrl: null });
    expect(openai.find((m) => m.id === 'gpt-4o')).toEqual({
      id: 'gpt-4o',
      ownedBy: 'openai',
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
    });
  });

  it('returns [] for an unknown type without baseUrl', async () => {
    await expect(listModels({ type: 'acme-llm' })).resolves.toEqual([]);
    await expect(listModels({ type: '' })).resolves.toEqual([]);
    expect(builtInModels('acme-llm')).toEqual([]);
  });

  it('gives each caller its own copies', () => {
    const first = builtInModels('openai');
    first[0]!.contextWindow = 1;
    expect(builtInModels('openai')[0]!.contextWindow).not.toBe(1);
  });
});

interface ModelsServer {
  baseUrl: string;
  requests: { url: string; headers: IncomingHttpHeaders }[];
}

const servers: Server[] = [];

/** A tiny loopback OpenAI-compatible server; `answer` decides status and body. */
async function startModelsServer(answer: { status?: number; body?: string; hang?: boolean }): Promise<ModelsServer> {
  const requests: ModelsServer['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url!, headers: req.headers });
    if (answer.hang) return;
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(answer.body ?? '');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const LIST = JSON.stringify({
  object: 'list',
  data: [
    { id: 'gpt-4o', object: 'model', owned_by: 'system' },
    { id: 'gpt-4o-2024-08-06', object: 'model', owned_by: 'system' },
    { id: 'openai/gpt-4.1-mini', owned_by: 'openai' },
    { id: 'claude-sonnet-4-5', owned_by: 'anthropic' },
    { id: 'llama-3.1-8b-instruct', owned_by: 'meta' },
    { id: 'served-with-limits', context_length: 32_768, max_output_tokens: 4_096 },
    { id: 'gpt-4o', owned_by: 'duplicate' },
    { id: 42 },
    null,
  ],
});

const SECRET = 'sk-test-not-a-real-secret';

describe('listModels from a baseUrl', () => {
  it('GETs {baseUrl}/models with a bearer token and maps + merges the list', async () => {
    const upstream = await startModelsServer({ body: LIST });
    const models = await listModels({ type: 'openai', baseUrl: `${upstream.baseUrl}/`, secret: SECRET });

    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.url).toBe('/v1/models');
    expect(upstream.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(models).toEqual([
      { id: 'gpt-4o', ownedBy: 'system', contextWindow: 128_000, maxOutputTokens: 16_384 },
      { id: 'gpt-4o-2024-08-06', ownedBy: 'system', contextWindow: 128_000, maxOutputTokens: 16_384 },
      { id: 'openai/gpt-4.1-mini', ownedBy: 'openai', contextWindow: 1_047_576, maxOutputTokens: 32_768 },
      { id: 'claude-sonnet-4-5', ownedBy: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
      { id: 'llama-3.1-8b-instruct', ownedBy: 'meta' },
      { id: 'served-with-limits', contextWindow: 32_768, maxOutputTokens: 4_096 },
    ]);
  });

  it('sends no authorization header without a secret, whatever the type', async () => {
    const upstream = await startModelsServer({ body: JSON.stringify({ data: [{ id: 'local-model' }] }) });
    const models = await listModels({ type: 'acme-llm', baseUrl: upstream.baseUrl });
    expect(models).toEqual([{ id: 'local-model' }]);
    expect(upstream.requests[0]!.headers.authorization).toBeUndefined();
  });

  it.each([
    { name: 'HTTP 401', answer: { status: 401, body: '{"error":"bad key"}' }, error: /: HTTP 401$/ },
    { name: 'HTTP 500', answer: { status: 500, body: 'oops' }, error: /: HTTP 500$/ },
    { name: 'non-JSON body', answer: { body: '<html>' }, error: /: the answer is not JSON$/ },
    { name: 'no data array', answer: { body: '{"models":[]}' }, error: /unexpected answer from .*: no "data" array/ },
  ])('$name → clear error without the secret', async ({ answer, error }) => {
    const upstream = await startModelsServer(answer);
    const failure = (await listModels({ type: 'openai', baseUrl: upstream.baseUrl, secret: SECRET }).catch((e: unknown) => e)) as Error;
    expect(failure).toBeInstanceOf(Error);
    expect(failure.message).toMatch(error);
    expect(failure.message).toContain(`${upstream.baseUrl}/models`);
    expect(failure.message).not.toContain(SECRET);
  });

  it('times out', async () => {
    const upstream = await startModelsServer({ hang: true });
    const started = Date.now();
    await expect(listModels({ type: 'openai', baseUrl: upstream.baseUrl, secret: SECRET }, { timeoutMs: 200 })).rejects.toThrow(
      /could not list models at .*: timed out after 200 ms/,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('reports a refused connection', async () => {
    const upstream = await startModelsServer({});
    const server = servers.pop()!;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(listModels({ type: 'openai', baseUrl: upstream.baseUrl })).rejects.toThrow(
      /could not list models at http:\/\/127\.0\.0\.1:\d+\/v1\/models: .*ECONNREFUSED/,
    );
  });

  it.each([
    { baseUrl: 'not a url', error: /is not a valid URL/ },
    { baseUrl: 'ftp://127.0.0.1/v1', error: /must be http or https/ },
    { baseUrl: 'http://user:pw@127.0.0.1:1/v1', error: /must not contain credentials/ },
  ])('rejects baseUrl $baseUrl', async ({ baseUrl, error }) => {
    await expect(listModels({ type: 'openai', baseUrl })).rejects.toThrow(error);
  });
});
