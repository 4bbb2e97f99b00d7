// --json error output: one JSON object on stderr with the stable code; text mode is unchanged.
import { describe, expect, it } from 'vitest';
import { copyExample, runCli } from '../helpers/cli.js';

describe('error codes on the command line', () => {
  it('plan --json with an unknown environment: {"error": {code, fault, message, hint}} on stderr, nothing on stdout', async () => {
    const dir = await copyExample('quickstart');
    const result = await runCli(['plan', dir, '-e', 'nosuch', '--json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: { code: 'unknown_environment', fault: 'user', message: 'unknown environment nosuch', hint: expect.stringContaining('the project declares') },
    });
  });

  it('a key for another environment: key_environment_mismatch, the key not shown', async () => {
    const dir = await copyExample('quickstart');
    const token = 'svc_prod_doNotShowThis';
    const result = await runCli(['plan', dir, '--json', '--url', 'https://control.example.com', '--token', token]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error).toMatchObject({ code: 'key_environment_mismatch', fault: 'user' });
    expect(result.stderr).not.toContain('doNotShowThis');
  });

  it('without --json the same error is text, as before', async () => {
    const dir = await copyExample('quickstart');
    const result = await runCli(['plan', dir, '-e', 'nosuch']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: unknown environment nosuch\n/);
  });
});
