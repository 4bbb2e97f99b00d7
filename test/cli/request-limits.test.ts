// AGENTFORM_TIMEOUT and AGENTFORM_MAX_RETRIES reach every request of a command: the real CLI
// against a server that stalls.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'svc_dev_timeoutTestKey1234';
let server: RecordingServer;

beforeAll(async () => {
  server = await startRecordingServer();
  // Every operation stalls for longer than any timeout below (the client gives up first).
  server.otherwise({ status: 200, body: {}, delayMs: 10_000 });
});
afterAll(() => server.close());

describe('AGENTFORM_TIMEOUT', () => {
  it('sets the limit of each request, and the message names it', async () => {
    const result = await runCli(['whoami', '--url', server.url, '--token', TOKEN], { env: { AGENTFORM_TIMEOUT: '0.3', AGENTFORM_MAX_RETRIES: '0' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no answer from ${server.url} within 300 ms`);
  });

  it('a value that is not a number of seconds is refused before any request', async () => {
    const before = server.requests.length;
    const result = await runCli(['whoami', '--url', server.url, '--token', TOKEN], { env: { AGENTFORM_TIMEOUT: '30s' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('AGENTFORM_TIMEOUT must be a number of seconds from 0.001 to 2147483, not "30s"');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(server.requests.length).toBe(before);
  });
});

describe('a bad value with the local control plane', () => {
  // It once hung: the plane was started before the variables were read, and never released.
  it.each([{ AGENTFORM_TIMEOUT: 'abc' }, { AGENTFORM_MAX_RETRIES: 'five' }])('%j: refused before the plane starts, and the command ends', async (env) => {
    const cwd = mkdtempSync(join(tmpdir(), 'agentform-limits-'));
    try {
      const result = await runCli(['whoami', '--url', 'local'], { cwd, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/must be a (whole )?number/);
      expect(result.stdout + result.stderr).not.toContain('Using the local control plane');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('AGENTFORM_MAX_RETRIES', () => {
  it('a value that is not a whole number is refused before any request (it once meant the default)', async () => {
    const before = server.requests.length;
    const result = await runCli(['whoami', '--url', server.url, '--token', TOKEN], { env: { AGENTFORM_MAX_RETRIES: 'five' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('AGENTFORM_MAX_RETRIES must be a whole number of retries (0 for none), not "five"');
    expect(server.requests.length).toBe(before);
  });
});
