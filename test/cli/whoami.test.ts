// whoami against the recording server: what it learns, what it says when it cannot learn it, and
// that the token never reaches the output.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import { register } from '../../src/cli/commands/whoami/index.js';
import { renderIdentity } from '../../src/render/identity.js';
import { describeIdentity } from '../../src/state/identity.js';
import { addGlobalOptions } from '../../src/cli/global-options.js';
import { startLocalControlPlane } from '../../src/server/embedded.js';
import { CLI, runCli } from '../helpers/cli.js';
import { apiError, closedPort, ok, startRecordingServer, UNIMPLEMENTED, type RecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'svc_pr-7_whoamiSecret9f3';
const ORG = { id: 'org_1', slug: 'acme', name: 'Acme' };
const ENV = { id: 'env_7', slug: 'pr-7', name: 'PR 7', kind: 'preview' };
const KEYS = [
  { id: 'key_old', name: 'ci', prefix: 'svc_pr-7_whoa', scopes: ['read'], revokedAt: '2026-01-01T00:00:00Z' },
  { id: 'key_other', name: 'bot', prefix: 'svc_pr-7_zzzz', scopes: ['read'] },
  { id: 'key_ci', name: 'ci', prefix: 'svc_pr-7_whoa', scopes: ['read', 'control'], expiresAt: '2027-01-01T00:00:00Z' },
];

let server: RecordingServer;
let client: ControlApiClient;
beforeEach(async () => {
  server = await startRecordingServer(UNIMPLEMENTED);
  server.on('/v1/organizations/get', ok(ORG));
  server.on('/v1/environments/get', ok(ENV));
  server.on('/v1/apiKeys/list', ok(KEYS));
  client = new ControlApiClient({ baseUrl: server.url, credential: { kind: 'key', token: TOKEN }, retry: { maxAttempts: 1 } });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

describe('describeIdentity', () => {
  it('finds the organization, the environment of the key and the live key its token starts with', async () => {
    const identity = await describeIdentity(client, { kind: 'key', token: TOKEN }, 'pr-7');
    expect(identity).toEqual({
      organization: ORG,
      environment: { slug: 'pr-7', id: 'env_7', name: 'PR 7', kind: 'preview' },
      credential: 'api-key',
      key: { id: 'key_ci', name: 'ci', expiresAt: '2027-01-01T00:00:00Z' },
      scopes: ['read', 'control'],
      notes: [],
    });
    expect(server.requestsTo('/v1/environments/get')[0]!.body).toEqual({ slug: 'pr-7' });
    expect(server.requestsTo('/v1/organizations/get')[0]!.rawBody).toBe('');
  });

  it.each([
    ['denied', apiError(403, 'permission_denied'), /scopes unknown: apiKeys\.list: the key may not read it/],
    ['missing', UNIMPLEMENTED, /scopes unknown: apiKeys\.list: the server does not offer it/],
    ['without the key', ok([KEYS[1]]), /scopes unknown: the key is not among/],
  ])('apiKeys.list %s → scopes unknown, with the reason', async (_name, answer, note) => {
    server.on('/v1/apiKeys/list', answer);
    const identity = await describeIdentity(client, { kind: 'key', token: TOKEN }, 'pr-7');
    expect(identity.scopes).toBeNull();
    expect(identity.key).toBeNull();
    expect(identity.notes.join('\n')).toMatch(note);
    expect(renderIdentity(identity)).toMatch(/scopes\s+unknown/);
  });

  it('an environment it cannot read is still named, with a note', async () => {
    server.on('/v1/environments/get', apiError(404, 'not_found', 'no environment pr-7'));
    const identity = await describeIdentity(client, { kind: 'key', token: TOKEN }, 'pr-7');
    expect(identity.environment).toEqual({ slug: 'pr-7' });
    expect(identity.notes).toContain('environment pr-7: not_found: no environment pr-7');
  });

  it('with a cookie: no key lookup, environment only when named', async () => {
    const cookie = { kind: 'cookie', cookie: 'session=abc' } as const;
    const identity = await describeIdentity(client, cookie, undefined);
    expect(identity.credential).toBe('cookie');
    expect(identity.environment).toBeNull();
    expect(server.requestsTo('/v1/apiKeys/list')).toHaveLength(0);
    expect(server.requestsTo('/v1/environments/get')).toHaveLength(0);
    expect(renderIdentity(identity)).toContain('session cookie');
  });

  it('a key that may not read (control only) is described as far as its format tells: scopes unknown', async () => {
    for (const path of ['/v1/organizations/get', '/v1/environments/get', '/v1/apiKeys/list']) {
      server.on(path, apiError(403, 'permission_denied', 'organizations.get needs the read scope, which this credential does not have'));
    }
    const identity = await describeIdentity(client, { kind: 'key', token: TOKEN }, 'pr-7');
    expect(identity).toEqual({
      organization: null,
      environment: { slug: 'pr-7' },
      credential: 'api-key',
      key: null,
      scopes: null,
      notes: [
        'organization unknown: the key may not read it (permission_denied)',
        'scopes unknown: the key may not call read operations (it may hold control only)',
      ],
    });
    // Only the one read that tells: no further reads, and never a control operation as a probe.
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/organizations/get']);
    const table = renderIdentity(identity);
    expect(table).toMatch(/^organization\s+unknown$/m);
    expect(table).toMatch(/^environment\s+pr-7$/m);
    expect(table).toMatch(/^scopes\s+unknown$/m);
  });

  it('fails when even organizations.get fails (bad key)', async () => {
    server.on('/v1/organizations/get', apiError(401, 'unauthenticated', 'invalid key'));
    await expect(describeIdentity(client, { kind: 'key', token: TOKEN }, 'pr-7')).rejects.toMatchObject({ code: 'unauthenticated' });
  });
});

describe('agentform whoami', () => {
  async function run(args: string[]): Promise<string> {
    const program = new Command('agentform').exitOverride();
    addGlobalOptions(program);
    register(program);
    let out = '';
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    try {
      await program.parseAsync(['node', 'agentform', '--url', server.url, '--token', TOKEN, 'whoami', ...args]);
    } finally {
      write.mockRestore();
    }
    return out;
  }

  it('prints a table without the token', async () => {
    const out = await run([]);
    expect(out).toBe(
      [
        'FIELD         VALUE',
        'organization  Acme (acme, org_1)',
        'environment   pr-7 (env_7)',
        'credential    API key ci (key_ci)',
        'scopes        read, control',
        'expires       2027-01-01T00:00:00Z',
        '',
      ].join('\n'),
    );
    expect(out).not.toContain('whoamiSecret9f3');
  });

  it('prints JSON with --json, without the token', async () => {
    const out = await run(['--json']);
    const parsed = JSON.parse(out) as { organization: unknown; environment: { slug: string }; scopes: string[] };
    expect(parsed.organization).toEqual(ORG);
    expect(parsed.environment.slug).toBe('pr-7');
    expect(parsed.scopes).toEqual(['read', 'control']);
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain('whoamiSecret9f3');
  });

  it('sends the token only in the authorization header', async () => {
    await run([]);
    for (const request of server.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(request.rawBody).not.toContain('whoamiSecret9f3');
    }
  });
});

// The real binary, the way a user runs it: built once, then spawned against the recording server
// and against the embedded local control plane.
describe('node dist/cli/agentform.js whoami', () => {
  beforeAll(async () => {
    // dist/ is built once by test/global-setup.ts.
    expect(existsSync(CLI)).toBe(true);
  }, 120_000);

  const envFor = (extra: NodeJS.ProcessEnv = {}) => ({ AGENTFORM_URL: server.url, AGENTFORM_TOKEN: TOKEN, AGENTFORM_MAX_RETRIES: '0', ...extra });
  const expectNoToken = (...texts: string[]) => {
    for (const text of texts) expect(text).not.toContain('whoamiSecret9f3');
  };

  it('prints the table: organization, environment, key and scopes', async () => {
    const result = await runCli(['whoami'], { env: envFor() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^FIELD\s+VALUE$/m);
    expect(result.stdout).toMatch(/^organization\s+Acme \(acme, org_1\)$/m);
    expect(result.stdout).toMatch(/^environment\s+pr-7/m);
    expect(result.stdout).toMatch(/^credential\s+API key ci \(key_ci\)$/m);
    expect(result.stdout).toMatch(/^scopes\s+read, control$/m);
    expectNoToken(result.stdout, result.stderr);
  });

  it('--json prints data, flags beat variables', async () => {
    const result = await runCli(['whoami', '--json', '--url', server.url, '--token', TOKEN], {
      env: { AGENTFORM_URL: 'http://127.0.0.1:9', AGENTFORM_TOKEN: 'svc_other_x' },
    });
    expect(result.code, result.stderr).toBe(0);
    const identity = JSON.parse(result.stdout) as { organization: { slug: string }; environment: { slug: string }; key: { id: string }; scopes: string[] };
    expect(identity).toMatchObject({ organization: { slug: 'acme' }, environment: { slug: 'pr-7' }, key: { id: 'key_ci' }, scopes: ['read', 'control'] });
    expectNoToken(result.stdout, result.stderr);
  });

  it('says scopes are unknown, and why, when apiKeys.list is not offered', async () => {
    server.on('/v1/apiKeys/list', UNIMPLEMENTED);
    const result = await runCli(['whoami'], { env: envFor() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^scopes\s+unknown$/m);
    expect(result.stdout).toContain('note: scopes unknown: apiKeys.list: the server does not offer it');
  });

  it('--debug traces the requests without the token', async () => {
    const result = await runCli(['whoami', '--debug'], { env: envFor() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('→ POST /v1/organizations/get');
    expect(result.stderr).toContain('→ POST /v1/apiKeys/list');
    expectNoToken(result.stdout, result.stderr);
  });

  it.each<[string, () => NodeJS.ProcessEnv | Promise<NodeJS.ProcessEnv>, RegExp]>([
    [
      'a rejected key',
      () => {
        server.on('/v1/organizations/get', apiError(401, 'unauthenticated', 'invalid key'));
        return envFor();
      },
      /Error: organizations\.get: unauthenticated \(HTTP 401\): invalid key/,
    ],
    [
      // A gateway's own 401 body: its words are the only explanation there is.
      'a 401 whose body is not the error envelope',
      () => {
        server.on('/v1/organizations/get', { status: 401, body: { message: 'Token expired' } });
        return envFor();
      },
      /Error: organizations\.get: unauthenticated \(HTTP 401\): HTTP 401: Token expired/,
    ],
    ['no URL', () => ({ AGENTFORM_TOKEN: TOKEN }), /no Control API URL: pass --url or set AGENTFORM_URL/],
    ['a malformed key', () => envFor({ AGENTFORM_TOKEN: 'svc_whoamiSecret9f3' }), /the API key is malformed/],
    ['plain http to another host', () => envFor({ AGENTFORM_URL: 'http://control.example.com' }), /refusing plain http:\/\/ to control\.example\.com/],
    [
      'a closed port',
      async () => envFor({ AGENTFORM_URL: `http://127.0.0.1:${await closedPort()}` }),
      /connection_refused: could not connect to http:\/\/127\.0\.0\.1:\d+/,
    ],
  ])('%s: exit 1 with a clear message, no stack, no token', async (_name, makeEnv, message) => {
    const result = await runCli(['whoami'], { env: await makeEnv() });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
    expectNoToken(result.stdout, result.stderr);
  });

  it('against the local control plane: its organization, environment and key', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agentform-whoami-'));
    const local = await startLocalControlPlane({ dataDir, environments: ['dev'] });
    try {
      const token = local.tokens.dev!;
      const result = await runCli(['whoami', '--json'], { env: { AGENTFORM_URL: local.url, AGENTFORM_TOKEN: token } });
      expect(result.code, result.stderr).toBe(0);
      const identity = JSON.parse(result.stdout) as {
        organization: { id: string };
        environment: { slug: string; id?: string };
        scopes: string[] | null;
        notes: string[];
      };
      expect(identity.organization.id).toBeTruthy();
      expect(identity.environment.slug).toBe('dev');
      expect(identity.environment.id).toBeTruthy();
      expect(identity.scopes, identity.notes.join('; ')).toEqual(expect.arrayContaining(['read', 'control']));
      expect(result.stdout).not.toContain(token);
      expect(result.stderr).not.toContain(token);

      const table = await runCli(['whoami'], { env: { AGENTFORM_URL: local.url, AGENTFORM_TOKEN: token } });
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/^environment\s+dev/m);
      expect(table.stdout).not.toContain(token);
    } finally {
      await local.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('against the local control plane with a control-only key: exit 0, scopes unknown, no token shown', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agentform-whoami-control-'));
    const local = await startLocalControlPlane({ dataDir, environments: ['dev'] });
    try {
      const created = await fetch(`${local.url}/v1/apiKeys/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${local.tokens.dev!}`, 'content-type': 'application/json' },
        body: JSON.stringify({ key: { name: 'deployer', scopes: ['control'] } }),
      });
      expect(created.status).toBe(200);
      const { token } = (await created.json()) as { token: string };
      const result = await runCli(['whoami'], { env: { AGENTFORM_URL: local.url, AGENTFORM_TOKEN: token } });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^organization\s+unknown$/m);
      expect(result.stdout).toMatch(/^environment\s+dev$/m);
      expect(result.stdout).toMatch(/^scopes\s+unknown$/m);
      expect(result.stdout).toContain('note: scopes unknown: the key may not call read operations (it may hold control only)');
      expect(result.stdout + result.stderr).not.toContain(token.slice(token.lastIndexOf('_') + 1));
    } finally {
      await local.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('--url local starts the local control plane in .agentform/local of the working directory', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'agentform-whoami-local-'));
    try {
      const result = await runCli(['whoami', '--url', 'local', '--json'], { cwd });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('local control plane');
      expect((JSON.parse(result.stdout) as { environment: { slug: string } }).environment.slug).toBe('dev');
      expect(result.stdout).not.toMatch(/svc_[A-Za-z0-9-]+_[A-Za-z0-9]{6,}/);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
