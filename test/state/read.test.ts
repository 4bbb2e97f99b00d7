import { describe, expect, it } from 'vitest';
import type { RequestOf, ResponseOf, Rpc } from '../../src/api/operations.js';
import { ApiError } from '../../src/errors.js';
import { readActualState, type RpcCaller } from '../../src/state/read.js';

type Handlers = Partial<{ [R in Rpc]: (request: RequestOf<R>) => ResponseOf<R> }>;

const unimplemented = (rpc: string) => () => {
  throw new ApiError(rpc, 404, 'unimplemented', `unknown operation ${rpc}`);
};

/** A fake caller that answers from handlers and records calls and the peak concurrency. */
function fakeCaller(handlers: Handlers) {
  const calls: Rpc[] = [];
  let inFlight = 0;
  let peak = 0;
  const caller: RpcCaller = {
    async call(rpc, request) {
      calls.push(rpc);
      inFlight++;
      peak = Math.max(peak, inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 2));
        const handler = handlers[rpc] as ((request: unknown) => unknown) | undefined;
        if (!handler) throw new Error(`unexpected call ${rpc}`);
        return handler(request) as never;
      } finally {
        inFlight--;
      }
    },
  };
  return { caller, calls, peak: () => peak };
}

const everything: Handlers = {
  'organizations.get': () => ({ id: 'o1', slug: 'acme', name: 'Acme' }),
  'environments.get': ({ slug }) => ({ id: 'e1', slug, name: 'Staging' }),
  'secrets.list': () => [{ id: 's1', name: 'db' }],
  'providers.list': () => [{ id: 'p1', name: 'openai', type: 'openai' }],
  'connections.list': () => [{ id: 'c1', name: 'gh', auth: { type: 'none' } }],
  'connections.grants.list': () => [{ id: 'g1', connectionId: 'c1', identity: { scope: 'user', id: 'alice' } }],
  'agents.list': () => [
    {
      agentId: 'a1',
      slug: 'bot',
      version: 1,
      definition: { name: 'Bot', model: { provider: 'openai', model: 'm' }, system: '', tools: [], policies: {}, limits: {} },
    },
  ],
  'apiKeys.list': () => [{ id: 'k1', name: 'ci', scopes: ['read'] }],
};

describe('readActualState', () => {
  it('reads every kind with one request per kind, concurrently', async () => {
    const fake = fakeCaller(everything);
    const state = await readActualState(fake.caller, 'staging');
    expect(state.resources.map((resource) => `${resource.kind}/${resource.name}`)).toEqual([
      'organization/current',
      'environment/staging',
      'secret/db',
      'provider/openai',
      'connection/gh',
      'grant/gh:user:alice',
      'agent/bot',
      'apiKey/ci',
    ]);
    expect(fake.calls.sort()).toEqual(Object.keys(everything).sort());
    expect(fake.peak()).toBeGreaterThan(1);
    expect(fake.peak()).toBeLessThanOrEqual(8);
    expect(state.missingOperations).toEqual([]);
  });

  it('reads only the kinds asked for (a grant without a connection name costs one connections.list)', async () => {
    const fake = fakeCaller(everything);
    const state = await readActualState(fake.caller, 'staging', ['grant']);
    expect(state.resources.map((resource) => resource.name)).toEqual(['gh:user:alice']);
    expect(fake.calls.sort()).toEqual(['connections.grants.list', 'connections.list']);
  });

  it('records a missing assumed list operation instead of failing', async () => {
    const fake = fakeCaller({ ...everything, 'agents.list': unimplemented('agents.list') });
    const state = await readActualState(fake.caller, 'staging');
    expect(state.missingOperations).toEqual([{ rpc: 'agents.list', consequence: 'agents cannot be planned' }]);
    expect(state.resources.some((resource) => resource.kind === 'agent')).toBe(false);
  });

  it('fails on a missing documented operation, and on other errors', async () => {
    await expect(
      readActualState(fakeCaller({ ...everything, 'connections.grants.list': unimplemented('connections.grants.list') }).caller, 'staging'),
    ).rejects.toThrow(/unknown operation/);
    const denied = () => {
      throw new ApiError('secrets.list', 403, 'permission_denied', 'no');
    };
    await expect(readActualState(fakeCaller({ ...everything, 'secrets.list': denied }).caller, 'staging')).rejects.toMatchObject({ code: 'permission_denied' });
  });

  it('an environment that does not exist yet is simply absent', async () => {
    const missing = () => {
      throw new ApiError('environments.get', 404, 'not_found', 'no such environment');
    };
    const state = await readActualState(fakeCaller({ ...everything, 'environments.get': missing }).caller, 'staging', ['environment']);
    expect(state.resources).toEqual([]);
  });
});
