// Shared by the authorization matrix and the fuzzer: plain undici requests to one operation, a
// valid sample request for every operation of the contract (typed over `Rpc`, so a new operation
// in src/api/operations.ts does not compile until it has one), and a populated dev environment.
import { request } from 'undici';
import { operationPath, type RequestOf, type Rpc } from '../../src/api/operations.js';

export interface Answer {
  status: number;
  text: string;
}

export type Headers = Record<string, string>;

export const bearer = (token: string): Headers => ({ authorization: `Bearer ${token}` });

/** POSTs `body` (a string is sent as it is; undefined sends no body) and reads the whole answer. */
export async function send(url: string, path: string, body: unknown, headers: Headers): Promise<Answer> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const response = await request(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
  return { status: response.statusCode, text: await response.body.text() };
}

export const callRpc = (url: string, rpc: Rpc, body: unknown, headers: Headers): Promise<Answer> => send(url, operationPath(rpc), body, headers);

/** The ids of objects that live in the dev environment (what another environment must never see). */
export interface DevObjects {
  agentSlug: string;
  agentId: string;
  providerId: string;
  providerName: string;
  secretId: string;
  connectionId: string;
  grantId: string;
  keyId: string;
  sessionId: string;
  deliveryId: string;
}

const DEFINITION = {
  name: 'Matrix',
  model: { provider: 'anthropic', model: 'claude-sonnet' },
  system: 'You help.',
  tools: [{ type: 'builtin', name: 'current_time' }],
  policies: {},
  limits: {},
} as const;

const PERIOD = { from: '2020-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' };

/** A well-formed request for every operation; writes aim at dev's objects (by id) or at fresh names. */
export const SAMPLE_REQUESTS: { [R in Rpc]: (dev: DevObjects) => RequestOf<R> } = {
  'apiKeys.create': () => ({ key: { name: 'matrix-key', scopes: ['read'] } }),
  'apiKeys.revoke': (dev) => ({ id: dev.keyId }),
  'apiKeys.list': () => ({}),
  'agents.upsert': (dev) => ({ slug: dev.agentSlug, definition: { ...DEFINITION, tools: [...DEFINITION.tools], system: 'Overwritten.' } }),
  'agents.list': () => ({}),
  'agents.get': (dev) => ({ slug: dev.agentSlug }),
  'agents.delete': (dev) => ({ slug: dev.agentSlug }),
  'environments.get': () => ({ slug: 'matrix-env' }),
  'environments.list': () => ({}),
  'environments.create': () => ({ slug: 'matrix-env', name: 'Matrix' }),
  'environments.update': () => ({ slug: 'matrix-env', name: 'Matrix 2' }),
  'environments.archive': () => ({ slug: 'matrix-env' }),
  'organizations.get': () => undefined,
  'organizations.update': () => ({ name: 'local' }),
  'sandboxes.list': () => ({}),
  'connections.create': () => ({ name: 'matrix-conn', auth: { type: 'none' } }),
  'connections.list': () => ({}),
  'connections.update': (dev) => ({ id: dev.connectionId, name: 'stolen' }),
  'connections.delete': (dev) => ({ id: dev.connectionId }),
  'connections.test': (dev) => ({ id: dev.connectionId }),
  'connections.grants.import': (dev) => ({
    connectionId: dev.connectionId,
    mode: 'overwrite',
    grants: [{ identity: { scope: 'team', id: 'support' }, accessToken: 'stolen' }],
  }),
  'connections.grants.list': () => ({}),
  'connections.grants.delete': (dev) => ({ id: dev.grantId }),
  'hooks.redeliver': (dev) => ({ id: dev.deliveryId }),
  'hooks.redeliverAll': () => ({}),
  'sessions.events': (dev) => ({ id: dev.sessionId }),
  'sessions.pending': (dev) => ({ id: dev.sessionId }),
  'providers.create': () => ({ name: 'matrix-provider', type: 'openai' }),
  'providers.list': () => ({}),
  'providers.update': (dev) => ({ id: dev.providerId, name: 'stolen' }),
  'providers.delete': (dev) => ({ id: dev.providerId }),
  'providers.models': (dev) => ({ name: dev.providerName }),
  'secrets.create': () => ({ name: 'matrix-secret', value: 'v' }),
  'secrets.list': () => ({}),
  'secrets.update': (dev) => ({ id: dev.secretId, value: 'stolen' }),
  'secrets.delete': (dev) => ({ id: dev.secretId }),
  'usage.keys': () => ({ period: PERIOD }),
};

async function ok<T>(answer: Promise<Answer>, what: string): Promise<T> {
  const { status, text } = await answer;
  if (status >= 300) throw new Error(`${what}: HTTP ${status} ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** One object of every kind in dev (with `token`, a read+control dev key), a session and a hook delivery. */
export async function populateDev(url: string, token: string): Promise<DevObjects> {
  const auth = bearer(token);
  const provider = await ok<{ id: string; name: string }>(
    callRpc(url, 'providers.create', { name: 'devonly-provider', type: 'openai', secret: 'p' }, auth),
    'provider',
  );
  const secret = await ok<{ id: string }>(callRpc(url, 'secrets.create', { name: 'devonly-secret', value: 's' }, auth), 'secret');
  const connection = await ok<{ id: string }>(
    callRpc(
      url,
      'connections.create',
      {
        name: 'devonly-conn',
        url: 'http://127.0.0.1:9/mcp',
        auth: { type: 'svc-signed' },
        hooksUrl: 'http://127.0.0.1:9/hooks',
        hookEvents: ['session.started'],
      },
      auth,
    ),
    'connection',
  );
  const imported = await ok<{ results: Array<{ grantId?: string; id?: string }> }>(
    callRpc(
      url,
      'connections.grants.import',
      { connectionId: connection.id, mode: 'overwrite', grants: [{ identity: { scope: 'user', id: 'ada' }, accessToken: 'a' }] },
      auth,
    ),
    'grant',
  );
  const grants = await ok<Array<{ id: string }>>(callRpc(url, 'connections.grants.list', {}, auth), 'grants');
  const agent = await ok<{ agentId: string }>(callRpc(url, 'agents.upsert', { slug: 'devonly-agent', definition: DEFINITION }, auth), 'agent');
  const key = await ok<{ key: { id: string } }>(callRpc(url, 'apiKeys.create', { key: { name: 'devonly-key', scopes: ['read'] } }, auth), 'key');
  const session = await ok<{ sessionId: string; deliveries: string[] }>(
    send(url, '/dev/sessions/simulate', { agent: 'devonly-agent', events: ['session.started'], pending: 1, sandboxes: 1, usage: { inputTokens: 5 } }, auth),
    'session',
  );
  void imported;
  return {
    agentSlug: 'devonly-agent',
    agentId: agent.agentId,
    providerId: provider.id,
    providerName: provider.name,
    secretId: secret.id,
    connectionId: connection.id,
    grantId: grants[0]!.id,
    keyId: key.key.id,
    sessionId: session.sessionId,
    deliveryId: session.deliveries[0]!,
  };
}
