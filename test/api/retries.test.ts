// When the client tries again, how often, and how long it waits: each case counts attempts exactly.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { DEFAULT_RETRY_POLICY, isRetryableStatus, parseRetryAfter, retryDelayMs, retryPolicyFrom, type RetryPolicy } from '../../src/api/retry.js';
import { ApiError, UserError } from '../../src/errors.js';
import { apiError, drop, ok, startRecordingServer, type Answer, type RecordingServer } from '../helpers/recording-server.js';
import { TOKEN, rejectionOf, testClient } from './support.js';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer();
});
afterEach(async () => {
  await server.close();
});

const LIST = '/v1/sandboxes/list';

describe('retryable failures are tried again, then succeed', () => {
  it.each<[string, Answer]>([
    ['429', apiError(429, 'resource_exhausted', 'slow down')],
    ['502', { status: 502, text: 'Bad Gateway' }],
    ['503', apiError(503, 'unavailable', 'try later')],
    ['504', { status: 504, text: '' }],
    ['a connection reset', drop],
  ])('%s once → exactly 2 attempts', async (_name, failure) => {
    server.on(LIST, [failure, ok([{ id: 'sb_1' }])]);
    const { client, attempts, sleeps } = testClient(server.url);
    await expect(client.sandboxesList({})).resolves.toEqual([{ id: 'sb_1' }]);
    expect(server.requestsTo(LIST)).toHaveLength(2);
    expect(attempts.map((event) => event.attempt)).toEqual([1, 2]);
    expect(sleeps).toHaveLength(1);
    await client.close();
  });

  it('honours retry-after on 429 (seconds)', async () => {
    server.on(LIST, [apiError(429, 'resource_exhausted', 'slow down', { headers: { 'retry-after': '2' } }), ok([])]);
    const { client, sleeps } = testClient(server.url, { retry: { maxDelayMs: 10_000 } });
    await client.sandboxesList({});
    expect(sleeps).toEqual([2_000]);
    await client.close();
  });

  it('caps a huge retry-after at maxDelayMs', async () => {
    server.on(LIST, [apiError(429, 'resource_exhausted', 'slow down', { headers: { 'retry-after': '3600' } }), ok([])]);
    const { client, sleeps } = testClient(server.url, { retry: { maxDelayMs: 3_000 } });
    await client.sandboxesList({});
    expect(sleeps).toEqual([3_000]);
    await client.close();
  });

  it('retries idempotent writes blindly (agents.upsert behind a 503)', async () => {
    server.on('/v1/agents/upsert', [apiError(503, 'unavailable', 'x'), apiError(503, 'unavailable', 'x'), ok({ version: 3 })]);
    const { client } = testClient(server.url);
    await expect(client.agentsUpsert({ slug: 'a', definition: {} as never })).resolves.toEqual({ version: 3 });
    expect(server.requestsTo('/v1/agents/upsert')).toHaveLength(3);
    await client.close();
  });
});

describe('bounded attempts', () => {
  it.each([1, 2, 3, 5])('a server that is always 503 gets exactly maxAttempts=%i attempts', async (maxAttempts) => {
    server.on(LIST, apiError(503, 'unavailable', 'down'));
    const { client, sleeps } = testClient(server.url, { retry: { maxAttempts } });
    const error = (await rejectionOf(client.sandboxesList({}))) as ApiError;
    expect(error).toMatchObject({ status: 503, code: 'unavailable' });
    expect(server.requestsTo(LIST)).toHaveLength(maxAttempts);
    expect(sleeps).toHaveLength(maxAttempts - 1);
    await client.close();
  });

  it('stops retrying when the total time budget is spent', async () => {
    server.on(LIST, apiError(503, 'unavailable', 'down'));
    // Real sleeps of 30 ms against a 100 ms budget: a few attempts, far fewer than maxAttempts.
    const client = new ControlApiClient({
      baseUrl: server.url,
      credential: { kind: 'key', token: TOKEN },
      retry: { maxAttempts: 1_000, baseDelayMs: 30, maxDelayMs: 30, maxTotalMs: 100 },
    });
    const started = Date.now();
    await expect(client.sandboxesList({})).rejects.toMatchObject({ code: 'unavailable' });
    const count = server.requestsTo(LIST).length;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(count).toBeLessThan(20);
    expect(Date.now() - started).toBeLessThan(1_000);
    await client.close();
  });

  it.each<[number, string]>([
    [400, 'invalid_argument'],
    [401, 'unauthenticated'],
    [403, 'permission_denied'],
    [409, 'already_exists'],
    [500, 'internal'],
  ])('%i is not retried: exactly 1 attempt', async (status, code) => {
    server.on(LIST, apiError(status, code, 'no'));
    const { client, sleeps } = testClient(server.url);
    await expect(client.sandboxesList({})).rejects.toMatchObject({ status, code });
    expect(server.requestsTo(LIST)).toHaveLength(1);
    expect(sleeps).toEqual([]);
    await client.close();
  });
});

describe('backoff', () => {
  const policy: RetryPolicy = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1_000, maxTotalMs: 60_000 };

  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [5, 1_000],
    [9, 1_000],
  ])('attempt %i waits below a ceiling of %i ms (full jitter)', (attempt, ceiling) => {
    expect(retryDelayMs(attempt, policy, undefined, () => 0)).toBe(0);
    expect(retryDelayMs(attempt, policy, undefined, () => 0.5)).toBe(Math.floor(ceiling / 2));
    expect(retryDelayMs(attempt, policy, undefined, () => 0.999999)).toBe(ceiling - 1);
  });

  it('spreads delays (jitter): 200 draws of attempt 4 are not all equal and stay in [0, 800)', () => {
    const draws = Array.from({ length: 200 }, () => retryDelayMs(4, policy));
    expect(new Set(draws).size).toBeGreaterThan(20);
    for (const draw of draws) expect(draw >= 0 && draw < 800).toBe(true);
  });

  it('uses retry-after when given, capped at maxDelayMs; ignores nonsense', () => {
    expect(retryDelayMs(1, policy, 0.25, () => 0.9)).toBe(250);
    expect(retryDelayMs(1, policy, 30, () => 0.9)).toBe(1_000);
    expect(retryDelayMs(1, policy, Number.NaN, () => 0.5)).toBe(50);
    expect(retryDelayMs(1, policy, -1, () => 0.5)).toBe(50);
  });

  it.each<[string | undefined, number | undefined]>([
    ['3', 3],
    ['0', 0],
    ['1.5', 1.5],
    ['Thu, 01 Jan 2026 00:00:10 GMT', 10],
    ['Thu, 01 Jan 2026 00:00:00 GMT', 0],
    ['soon', undefined],
    [undefined, undefined],
    ['', undefined],
  ])('parseRetryAfter(%j) = %j', (header, seconds) => {
    expect(parseRetryAfter(header, Date.parse('2026-01-01T00:00:00Z'))).toBe(seconds);
  });

  it('retryable statuses are exactly 429, 502, 503, 504', () => {
    const retryable = Array.from({ length: 500 }, (_, index) => index + 100).filter(isRetryableStatus);
    expect(retryable).toEqual([429, 502, 503, 504]);
  });
});

describe('AGENTFORM_MAX_RETRIES', () => {
  it.each<[string | undefined, number]>([
    [undefined, DEFAULT_RETRY_POLICY.maxAttempts],
    ['0', 1],
    ['2', 3],
    ['10', 11],
    [' 3 ', 4],
    ['99999', 100_000],
    ['', DEFAULT_RETRY_POLICY.maxAttempts],
    ['  ', DEFAULT_RETRY_POLICY.maxAttempts],
  ])('%j → %i attempts', (value, attempts) => {
    const env = value === undefined ? {} : { AGENTFORM_MAX_RETRIES: value };
    expect(retryPolicyFrom(env).maxAttempts).toBe(attempts);
  });

  // They fell back to the default, silently, until the twenty-third session.
  it.each(['-1', 'many', '1.5', '1e2', '99999999999999999999'])('%j is refused, naming the variable and the value', (value) => {
    expect(() => retryPolicyFrom({ AGENTFORM_MAX_RETRIES: value })).toThrow(UserError);
    expect(() => retryPolicyFrom({ AGENTFORM_MAX_RETRIES: value })).toThrow(`AGENTFORM_MAX_RETRIES must be a whole number of retries (0 for none), not ${JSON.stringify(value)}`);
  });

  it('bounds the attempts of a real client: 2 retries = 3 attempts', async () => {
    server.on(LIST, apiError(503, 'unavailable', 'down'));
    const policy = retryPolicyFrom({ AGENTFORM_MAX_RETRIES: '2' }, { baseDelayMs: 1, maxDelayMs: 2 });
    const client = new ControlApiClient({ baseUrl: server.url, credential: { kind: 'key', token: TOKEN }, retry: policy });
    await expect(client.sandboxesList({})).rejects.toBeInstanceOf(ApiError);
    expect(server.requestsTo(LIST)).toHaveLength(3);
    await client.close();
  });
});
