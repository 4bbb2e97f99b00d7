// "Changed since plan" (the re-read before each update) looks only at what the tool understands:
// regression for issue 13 part 7, where a server field whose value changes on every read blocked
// every update. An out-of-band edit of a definition field, known or not, must still stop the write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import type { RequestOf, ResponseOf, Rpc, RpcCaller } from '../../src/api/operations.js';
import { applyPlan } from '../../src/apply/executor.js';
import { computePlan } from '../../src/engine/plan.js';
import type { DesiredState, JsonObject, ResourceKind } from '../../src/model/resources.js';
import { readActualState } from '../../src/state/read.js';
import { startServer } from '../server/helpers.js';

/** A server that adds a field whose value changes on every read to every record it lists. */
class Volatile implements RpcCaller {
  private reads = 0;
  constructor(private readonly client: ControlApiClient) {}
  async call<R extends Rpc>(rpc: R, request: RequestOf<R>): Promise<ResponseOf<R>> {
    const answer = await this.client.call(rpc, request);
    if (!Array.isArray(answer)) return answer;
    return answer.map((record: object) => ({ ...record, observedAt: `2026-01-01T00:00:${String(++this.reads).padStart(2, '0')}Z` })) as unknown as ResponseOf<R>;
  }
}

const definition = (maxTurns: number): JsonObject => ({ name: 'Bot', model: { provider: 'openai', model: 'gpt-4o' }, system: 'Be brief.', tools: [], policies: {}, limits: { maxTurns } });

function desired(maxTurns: number): DesiredState {
  return { projectDir: '/p', target: { name: 'dev', slug: 'dev', url: 'local', prune: false }, resources: [{ kind: 'agent', name: 'bot', spec: definition(maxTurns), writeOnly: {}, references: [] }] };
}

describe('changed since plan', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let client: ControlApiClient;
  let caller: Volatile;
  const options = () => ({
    parallelism: 1,
    reread: async (kind: ResourceKind) =>
      new Map((await readActualState(caller, 'dev', [kind])).resources.map((resource) => [resource.name, resource.fingerprint])),
    saveToken: async () => undefined,
  });
  beforeAll(async () => {
    server = await startServer();
    client = new ControlApiClient({ baseUrl: server.url, credential: { kind: 'key', token: server.tokens.dev as string } });
    caller = new Volatile(client);
    await client.call('agents.upsert', { slug: 'bot', definition: definition(5) as never });
  });
  afterAll(async () => {
    await client.close();
    await server.cleanup();
  });

  it('a field that changes on every read does not block an update', async () => {
    const actual = await readActualState(caller, 'dev');
    const plan = computePlan(desired(6), actual, { prune: false });
    expect(plan.summary.change).toBe(1);
    const result = await applyPlan(plan, desired(6), actual, { caller }, options());
    expect(result.failed).toEqual([]);
    expect((await client.call('agents.get', { slug: 'bot' })).definition.limits?.maxTurns).toBe(6);
  });

  it('an out-of-band edit of an unknown definition field between plan and apply stops the write', async () => {
    const actual = await readActualState(caller, 'dev');
    const plan = computePlan(desired(7), actual, { prune: false });
    const current = await client.call('agents.get', { slug: 'bot' });
    await client.call('agents.upsert', { slug: 'bot', definition: { ...current.definition, futureField: 'set elsewhere' } as never });
    const result = await applyPlan(plan, desired(7), actual, { caller }, options());
    expect(result.failed).toEqual([expect.objectContaining({ address: 'agent/bot', code: 'changed_since_plan' })]);
    expect((await client.call('agents.get', { slug: 'bot' })).definition.limits?.maxTurns).toBe(6);
  });
});
