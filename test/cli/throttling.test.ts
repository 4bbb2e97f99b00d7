// A run the server throttled ends with one line saying how much (issue 44, item 7): the real CLI
// (whoami: three reads) against a server that answers some requests 429 or 503 first.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { apiError, ok, startRecordingServer, UNIMPLEMENTED, type RecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'svc_pr-7_throttleSecret42';
const ORG = { id: 'org_1', slug: 'acme', name: 'Acme' };
const ENV = { id: 'env_7', slug: 'pr-7', name: 'PR 7', kind: 'preview' };
const KEYS = [{ id: 'key_ci', name: 'ci', prefix: 'svc_pr-7_thro', scopes: ['read'] }];
const BUSY = apiError(429, 'resource_exhausted', 'slow down', { headers: { 'retry-after': '0' } });

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer(UNIMPLEMENTED);
  server.on('/v1/environments/get', ok(ENV));
  server.on('/v1/apiKeys/list', [apiError(503, 'unavailable', 'busy'), ok(KEYS)]);
});
afterEach(() => server.close());

const whoami = (extra: string[] = [], env: NodeJS.ProcessEnv = {}) => runCli(['whoami', '--url', server.url, '--token', TOKEN, ...extra], { env });

describe('the throttling line', () => {
  it('more throttled answers in a row than attempts allowed for other failures: tried again, and said last on stderr', async () => {
    server.on('/v1/organizations/get', [BUSY, BUSY, BUSY, BUSY, BUSY, ok(ORG)]);
    const result = await whoami();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^organization\s+Acme/m);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(/^Throttled: 6 of 9 requests answered 429\/503; all tried again \(waits: \d+\.\d s in all\)$/);
  });

  it('--json: the line is JSON, stdout keeps only the command output', async () => {
    server.on('/v1/organizations/get', [BUSY, ok(ORG)]);
    const result = await whoami(['--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ organization: { slug: 'acme' } });
    expect(JSON.parse(result.stderr.trim())).toEqual({ throttling: { requests: 5, throttled: 2, waitedMs: expect.any(Number), gaveUp: 0 } });
  });

  it('AGENTFORM_MAX_RETRIES bounds throttled attempts too; the request that gave up is counted', async () => {
    server.on('/v1/organizations/get', [BUSY, BUSY, ok(ORG)]);
    const result = await whoami([], { AGENTFORM_MAX_RETRIES: '1' });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^Throttled: \d+ of \d+ requests answered 429\/503; 1 request gave up when the retry time budget ran out/,
    );
  });

  it('nothing throttled: no line', async () => {
    server.on('/v1/organizations/get', ok(ORG));
    server.on('/v1/apiKeys/list', ok(KEYS));
    const result = await whoami();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('Throttled');
  });
});
