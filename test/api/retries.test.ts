// When the client tries again, how often, and how long it waits: each case counts attempts exactly.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { MAX_TIMER_MS } from '../../src/util/clock.js';
import { DEFAULT_RETRY_POLICY, isRetryableStatus, parseRetryAfter, retryDelayMs, retryPolicyFrom, type RetryPolicy } from '../../src/api/retry.js';
import { ThrottleTally } from '../../src/api/throttling.js';
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

  it('honours a retry-after longer than maxDelayMs in full, on 503 too', async () => {
    server.on(LIST, [apiError(503, 'unavailable', 'busy', { headers: { 'retry-after': '30' } }), ok([])]);
    const { client, sleeps } = testClient(server.url, { retry: { maxDelayMs: 3_000 } });
    await client.sandboxesList({});
    expect(sleeps).toEqual([30_000]);
    await client.close();
  });

  it('fails at once when retry-after asks for more than the time budget has left (no early retry)', async () => {
    server.on(LIST, [apiError(429, 'resource_exhausted', 'slow down', { headers: { 'retry-after': '3600' } }), ok([])]);
    const tally = new ThrottleTally();
    const { client, sleeps } = testClient(server.url, { retry: { maxDelayMs: 3_000 }, throttling: tally });
    await expect(client.sandboxesList({})).rejects.toMatchObject({ status: 429 });
    expect(sleeps).toEqual([]);
    expect(server.requestsTo(LIST)).toHaveLength(1);
    expect(tally.snapshot()).toEqual({ requests: 1, throttled: 1, waitedMs: 0, gaveUp: 1 });
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
  it.each([1, 2, 3, 5])('a server that is always 502 gets exactly maxAttempts=%i attempts', async (maxAttempts) => {
    server.on(LIST, { status: 502, text: 'Bad Gateway' });
    const { client, sleeps } = testClient(server.url, { retry: { maxAttempts } });
    const error = (await rejectionOf(client.sandboxesList({}))) as ApiError;
    expect(error).toMatchObject({ status: 502, code: 'unavailable' });
    expect(server.requestsTo(LIST)).toHaveLength(maxAttempts);
    expect(sleeps).toHaveLength(maxAttempts - 1);
    await client.close();
  });

  it.each([1, 3])('with countThrottled, a server that is always 503 gets exactly maxAttempts=%i attempts', async (maxAttempts) => {
    server.on(LIST, apiError(503, 'unavailable', 'down'));
    const { client } = testClient(server.url, { retry: { maxAttempts, countThrottled: true } });
    await expect(client.sandboxesList({})).rejects.toMatchObject({ status: 503 });
    expect(server.requestsTo(LIST)).toHaveLength(maxAttempts);
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

describe('throttling (429, 503) is retried for time, not for a count (issue 44, item 7)', () => {
  it.each<[string, Answer]>([
    ['429', apiError(429, 'resource_exhausted', 'slow down', { headers: { 'retry-after': '0' } })],
    ['503', apiError(503, 'unavailable', 'busy')],
  ])('a read answered %s eight times in a row still succeeds with maxAttempts 3, and the tally says so', async (_name, busy) => {
    server.on(LIST, [...Array.from({ length: 8 }, () => busy), ok([{ id: 'sb_1' }])]);
    const tally = new ThrottleTally();
    const { client, sleeps } = testClient(server.url, { retry: { maxAttempts: 3 }, throttling: tally });
    await expect(client.sandboxesList({})).resolves.toEqual([{ id: 'sb_1' }]);
    expect(server.requestsTo(LIST)).toHaveLength(9);
    expect(tally.snapshot()).toEqual({ requests: 9, throttled: 8, waitedMs: sleeps.reduce((sum, ms) => sum + ms, 0), gaveUp: 0 });
    await client.close();
  });

  it('writes too: agents.upsert behind six 429s', async () => {
    server.on('/v1/agents/upsert', [...Array.from({ length: 6 }, () => apiError(429, 'resource_exhausted', 'x')), ok({ version: 3 })]);
    const { client } = testClient(server.url, { retry: { maxAttempts: 2 } });
    await expect(client.agentsUpsert({ slug: 'a', definition: {} as never })).resolves.toEqual({ version: 3 });
    await client.close();
  });

  it('other failures still count: 503s do not use up the attempts that 502s are bounded by', async () => {
    const answers: Answer[] = [
      apiError(503, 'unavailable', 'busy'),
      { status: 502, text: '' },
      apiError(503, 'unavailable', 'busy'),
      { status: 502, text: '' },
      ok([]),
    ];
    server.on(LIST, answers);
    const { client } = testClient(server.url, { retry: { maxAttempts: 2 } });
    await expect(client.sandboxesList({})).rejects.toMatchObject({ status: 502 });
    expect(server.requestsTo(LIST)).toHaveLength(4);
    await client.close();
  });

  it('ends when the time budget is spent, counting the waits (here a test sleep that returns at once)', async () => {
    server.on(LIST, apiError(429, 'resource_exhausted', 'slow down', { headers: { 'retry-after': '0' } }));
    const tally = new ThrottleTally();
    const { client, sleeps } = testClient(server.url, { retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10, maxTotalMs: 200 }, throttling: tally });
    await expect(client.sandboxesList({})).rejects.toMatchObject({ status: 429 });
    const waited = sleeps.reduce((sum, ms) => sum + ms, 0);
    expect(server.requestsTo(LIST).length).toBeGreaterThan(2);
    expect(waited).toBeLessThanOrEqual(200);
    expect(tally.snapshot()).toMatchObject({ throttled: server.requestsTo(LIST).length, waitedMs: waited, gaveUp: 1 });
    await client.close();
  });

  it('the closing line: nothing when nothing was throttled; counts, waits and give-ups otherwise; JSON with --json', () => {
    const tally = new ThrottleTally();
    tally.request();
    expect(tally.summary(false)).toBeUndefined();
    for (let i = 0; i < 9; i++) tally.request();
    tally.throttled();
    tally.throttled();
    tally.waited(1_250);
    expect(tally.summary(false)).toBe('Throttled: 2 of 10 requests answered 429/503; all tried again (waits: 1.3 s in all)');
    tally.gaveUp();
    expect(tally.summary(false)).toBe(
      'Throttled: 2 of 10 requests answered 429/503; 1 request gave up when the retry time budget ran out (waits: 1.3 s in all)',
    );
    expect(JSON.parse(tally.summary(true)!)).toEqual({ throttling: { requests: 10, throttled: 2, waitedMs: 1_250, gaveUp: 1 } });
  });
});

describe('backoff', () => {
  const policy: RetryPolicy = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1_000, maxTotalMs: 60_000, countThrottled: false };

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

  it('waits at least retry-after (uncapped), and the backoff when that is longer; ignores nonsense', () => {
    expect(retryDelayMs(1, policy, 0.25, () => 0.9)).toBe(250);
    expect(retryDelayMs(1, policy, 30, () => 0.9)).toBe(30_000);
    // A retry-after of 0 on every answer must not become a tight loop.
    expect(retryDelayMs(4, policy, 0, () => 0.5)).toBe(400);
    expect(retryDelayMs(1, policy, Number.NaN, () => 0.5)).toBe(50);
    expect(retryDelayMs(1, policy, -1, () => 0.5)).toBe(50);
    // Never a timer setTimeout cannot keep (it would fire at once, with a warning).
    expect(retryDelayMs(1, policy, 999_999_999, () => 0.5)).toBe(MAX_TIMER_MS);
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
    expect(() => retryPolicyFrom({ AGENTFORM_MAX_RETRIES: value })).toThrow(
      `AGENTFORM_MAX_RETRIES must be a whole number of retries (0 for none), not ${JSON.stringify(value)}`,
    );
  });

  it('set, it bounds throttled attempts too; unset, only the time budget does', () => {
    expect(retryPolicyFrom({ AGENTFORM_MAX_RETRIES: '2' }).countThrottled).toBe(true);
    expect(retryPolicyFrom({}).countThrottled).toBe(false);
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
