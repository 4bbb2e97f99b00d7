// --debug traces every request and response, and no secret ever appears in a trace or an error.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Credential } from '../../src/api/client.js';
import type { Rpc } from '../../src/api/operations.js';
import { redact, redactText, secretValuesIn } from '../../src/api/redact.js';
import { drop, ok, startRecordingServer, type Answer, type RecordingServer } from '../helpers/recording-server.js';
import { testClient } from './support.js';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer();
});
afterEach(async () => {
  await server.close();
});

interface LeakCase {
  name: string;
  credential?: Credential;
  rpc: Rpc;
  request: unknown;
  answer: Answer;
  /** Strings that must not appear anywhere in the trace or the error. */
  secrets: string[];
}

const KEY = 'svc_dev_SENTINELkey0001';
const CASES: LeakCase[] = [
  { name: 'the API key in the authorization header', rpc: 'sandboxes.list', request: {}, answer: ok([]), secrets: [KEY, 'SENTINELkey0001'] },
  {
    name: 'the session cookie',
    credential: { kind: 'cookie', cookie: 'session=SENTINELcookie77', organization: 'acme' },
    rpc: 'sandboxes.list',
    request: {},
    answer: ok([]),
    secrets: ['SENTINELcookie77'],
  },
  {
    name: 'a provider secret in the request',
    rpc: 'providers.create',
    request: { name: 'openai', type: 'openai', secret: 'sk-SENTINEL-provider-1' },
    answer: ok({ id: 'p1', name: 'openai', hasSecret: true }),
    secrets: ['sk-SENTINEL-provider-1'],
  },
  {
    name: 'a secret value in the request',
    rpc: 'secrets.create',
    request: { name: 'db', value: 'SENTINEL-db-password' },
    answer: ok({ id: 's1', name: 'db' }),
    secrets: ['SENTINEL-db-password'],
  },
  {
    name: 'a grant access token in the request',
    rpc: 'connections.grants.import',
    request: { connectionId: 'c1', mode: 'overwrite', grants: [{ identity: { scope: 'user', id: 'u1' }, accessToken: 'gho_SENTINELgrant' }] },
    answer: ok({ results: [] }),
    secrets: ['gho_SENTINELgrant'],
  },
  {
    name: 'the new key token in an apiKeys.create response',
    rpc: 'apiKeys.create',
    request: { key: { name: 'ci', scopes: ['read'] } },
    answer: ok({ key: { id: 'k1', name: 'ci', scopes: ['read'], prefix: 'svc_ci_ab' }, token: 'svc_ci_SENTINELnewtoken' }),
    secrets: ['SENTINELnewtoken'],
  },
  {
    name: 'secret fields in a JSON response (refreshToken, value, accessToken)',
    rpc: 'connections.list',
    request: {},
    answer: ok([{ id: 'c1', auth: { refreshToken: 'SENTINEL-refresh', accessToken: 'SENTINEL-access' }, value: 'SENTINEL-value' }]),
    secrets: ['SENTINEL-refresh', 'SENTINEL-access', 'SENTINEL-value'],
  },
  {
    // Auth field names are not shown by the API: every one but type is secret, whatever its name.
    name: 'connection auth fields of any name in a request, and echoed in the response',
    rpc: 'connections.create',
    request: {
      name: 'crm',
      auth: { type: 'oauth', clientId: 'SENTINEL-client-id', clientSecret: 'SENTINEL-client-secret', extra: { nested: ['SENTINEL-nested'] } },
    },
    answer: ok({ id: 'c1', name: 'crm', auth: { type: 'oauth', clientId: 'SENTINEL-client-id', password: 'SENTINEL-password-echo' } }),
    secrets: ['SENTINEL-client-id', 'SENTINEL-client-secret', 'SENTINEL-nested', 'SENTINEL-password-echo'],
  },
  {
    name: 'connection auth fields nested deep in a list response',
    rpc: 'connections.list',
    request: {},
    answer: ok([{ id: 'c1', name: 'crm', auth: { type: 'basic', username: 'SENTINEL-user', password: 'SENTINEL-pass' } }]),
    secrets: ['SENTINEL-user', 'SENTINEL-pass'],
  },
  {
    name: 'an error message echoing a connection auth field',
    rpc: 'connections.update',
    request: { id: 'c1', auth: { type: 'basic', password: 'SENTINEL-echoed-password' } },
    answer: { status: 400, text: 'password SENTINEL-echoed-password is too weak' },
    secrets: ['SENTINEL-echoed-password'],
  },
  {
    name: 'an error message echoing the request secret',
    rpc: 'providers.create',
    request: { name: 'openai', type: 'openai', secret: 'sk-SENTINEL-echoed-2' },
    answer: { status: 400, body: { error: { code: 'invalid_argument', message: 'secret sk-SENTINEL-echoed-2 is not a valid OpenAI key' } } },
    secrets: ['sk-SENTINEL-echoed-2'],
  },
  {
    name: 'a non-JSON error body echoing the bearer header',
    rpc: 'sandboxes.list',
    request: {},
    answer: { status: 401, text: `rejected header: Bearer ${KEY}` },
    secrets: [KEY, 'SENTINELkey0001'],
  },
  {
    name: 'an error echoing a key whose environment slug holds underscores',
    credential: { kind: 'key', token: 'svc_pr-12_x_SENTINELunder9' },
    rpc: 'sandboxes.list',
    request: {},
    answer: { status: 401, body: { error: { code: 'unauthenticated', message: 'key svc_pr-12_x_SENTINELunder9 is revoked' } } },
    secrets: ['SENTINELunder9'],
  },
  {
    name: 'another svc_ key (not ours) with underscores and dashes inside a response',
    rpc: 'apiKeys.list',
    request: {},
    answer: { status: 500, text: 'leaked svc_my_env_SENTINEL-dash-77 in a stack trace' },
    secrets: ['SENTINEL-dash-77', 'dash-77'],
  },
  {
    name: 'a secret value echoed by a server that then drops the connection',
    rpc: 'secrets.update',
    request: { id: 's1', value: 'SENTINEL-updated-value' },
    answer: drop,
    secrets: ['SENTINEL-updated-value'],
  },
];

describe('debug traces', () => {
  it.each(CASES.map((leakCase) => [leakCase.name, leakCase]))('never show %s', async (_name, leakCase) => {
    server.on(`/v1/${leakCase.rpc.split('.').join('/')}`, leakCase.answer);
    const { client, lines } = testClient(server.url, {
      credential: leakCase.credential ?? { kind: 'key', token: KEY },
      retry: { maxAttempts: 1 },
    });
    let errorText = '';
    try {
      await client.call(leakCase.rpc, leakCase.request as never);
    } catch (error) {
      errorText = `${String(error)} ${JSON.stringify(error)} ${(error as Error).message}`;
    }
    await client.close();

    const trace = lines.join('\n');
    // Every request and every answer (or failure) is traced.
    expect(trace).toContain(`→ POST /v1/${leakCase.rpc.split('.').join('/')}`);
    expect(trace).toMatch(/← (\d{3} \/v1\/|\S+ failed after)/);
    for (const secret of leakCase.secrets) {
      expect(trace, `trace shows ${secret}`).not.toContain(secret);
      expect(errorText, `error shows ${secret}`).not.toContain(secret);
    }
    // The server really did receive the secret: redaction is only for what we print.
    const sent = JSON.stringify(server.requests.map((request) => [request.headers, request.text]));
    const given = JSON.stringify([leakCase.request, leakCase.credential ?? KEY]);
    for (const secret of leakCase.secrets.filter((secret) => given.includes(secret))) expect(sent).toContain(secret);
  });

  it('traces one line pair per attempt, retries included', async () => {
    server.on('/v1/sandboxes/list', [{ status: 503, text: '' }, ok([])]);
    const { client, lines } = testClient(server.url);
    await client.sandboxesList({});
    await client.close();
    expect(lines.filter((line) => line.startsWith('→ POST'))).toHaveLength(2);
    expect(lines.filter((line) => line.startsWith('← '))).toHaveLength(2);
    expect(lines.some((line) => line.includes('retrying sandboxes.list'))).toBe(true);
  });

  it('is silent without debug', async () => {
    const { client } = testClient(server.url, { debug: undefined });
    await expect(client.sandboxesList({})).resolves.toEqual([]);
    await client.close();
  });
});

describe('redact', () => {
  it.each([
    ['svc_dev_abc123', '[redacted]'],
    ['key svc_pr-12_x_abc123 here', 'key [redacted] here'],
    ['svc_my_env_abc-def.', '[redacted].'],
    ['Authorization: Bearer abc.def.ghi', 'Authorization: Bearer [redacted]'],
    ['svc-signed is an auth type', 'svc-signed is an auth type'],
  ])('redactText(%j) = %j', (text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it('masks secret fields at any depth, case-insensitively, and leaves the rest', () => {
    expect(redact({ name: 'a', Token: 't', nested: [{ accessToken: 'x', Secret: 'y', value: 'z' }], value: null })).toEqual({
      name: 'a',
      Token: '[redacted]',
      nested: [{ accessToken: '[redacted]', Secret: '[redacted]', value: '[redacted]' }],
      value: null,
    });
  });

  it('masks every connection auth field but type, at any depth; a string auth (sandbox.preview.auth) is not a secret', () => {
    const body = {
      connections: [{ name: 'crm', auth: { type: 'oauth', audience: 'a1', scopes: ['x'], nested: { deep: 'd' }, unset: null } }],
      definition: { sandbox: { preview: { enabled: true, auth: 'signed-url' } } },
    };
    expect(redact(body)).toEqual({
      connections: [{ name: 'crm', auth: { type: 'oauth', audience: '[redacted]', scopes: '[redacted]', nested: '[redacted]', unset: null } }],
      definition: { sandbox: { preview: { enabled: true, auth: 'signed-url' } } },
    });
    expect(secretValuesIn(body).sort()).toEqual(['a1', 'd', 'x']);
  });

  it('masks extra secrets inside strings', () => {
    expect(redactText('the password hunter22 is wrong', ['hunter22'])).toBe('the password [redacted] is wrong');
  });
});
