// "Changed since plan" (the re-read before each write) compares what the plan depends on: the id,
// the write marks (a new version, updatedAt) and the fields the configuration manages. Regressions:
// issue 13 part 7 (a record field new on every read blocked every update) and issue 44 item 6 (the
// same for a field nested in the agent definition, which upserts send back). Apply merges the
// configuration onto the fresh read, so such a field is sent as the server has it now.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlApiClient } from '../../src/api/client.js';
import type { CallOptions, RequestOf, ResponseOf, Rpc, RpcCaller } from '../../src/api/operations.js';
import { applyPlan } from '../../src/apply/executor.js';
import { computePlan } from '../../src/engine/plan.js';
import type { DesiredState, JsonObject, ResourceKind } from '../../src/model/resources.js';
import { readActualState } from '../../src/state/read.js';
import { startServer } from '../server/helpers.js';

/**
 * A server that adds, to every agent record it lists, a field whose value changes on every read,
 * at the top of the record and nested in the definition; and records the definitions upserted.
 */
class Volatile implements RpcCaller {
  reads = 0;
  upserted: JsonObject[] = [];
  constructor(private readonly client: ControlApiClient) {}
  async call<R extends Rpc>(rpc: R, request: RequestOf<R>, options?: CallOptions<R>): Promise<ResponseOf<R>> {
    if (rpc === 'agents.upsert') this.upserted.push((request as unknown as { definition: JsonObject }).definition);
    const answer: unknown = await this.client.call(rpc, request, options);
    if (!Array.isArray(answer)) return answer as ResponseOf<R>;
    return answer.map((record: Record<string, unknown>) => {
      const stamp = `2026-01-01T00:00:${String(++this.reads).padStart(2, '0')}Z`;
      const definition = record.definition as { model?: object } | undefined;
      const churned = definition?.model ? { definition: { ...definition, model: { ...definition.model, resolvedAt: stamp } } } : {};
      return { ...record, observedAt: stamp, ...churned };
    }) as unknown as ResponseOf<R>;
  }
}

const definition = (maxTurns: number): JsonObject => ({
  name: 'Bot',
  model: { provider: 'openai', model: 'gpt-4o' },
  system: 'Be brief.',
  tools: [],
  policies: {},
  limits: { maxTurns },
});

function desired(maxTurns: number): DesiredState {
  return {
    projectDir: '/p',
    target: { name: 'dev', slug: 'dev', url: 'local', prune: false },
    resources: [{ kind: 'agent', name: 'bot', spec: definition(maxTurns), writeOnly: {}, references: [] }],
  };
}

describe('changed since plan', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let client: ControlApiClient;
  let caller: Volatile;
  const options = () => ({
    parallelism: 1,
    reread: async (kind: ResourceKind) => new Map((await readActualState(caller, 'dev', [kind])).resources.map((resource) => [resource.name, resource])),
    saveToken: async () => undefined,
  });
  const maxTurns = async () => (await client.call('agents.get', { slug: 'bot' })).definition.limits?.maxTurns;
  /** An upsert made elsewhere between plan and apply: the latest definition with `edit` applied. */
  const editElsewhere = async (edit: (current: JsonObject) => JsonObject) => {
    const current = await client.call('agents.get', { slug: 'bot' });
    await client.call('agents.upsert', { slug: 'bot', definition: edit(current.definition as unknown as JsonObject) as never });
  };
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

  it('fields that change on every read, on the record and nested in the definition, do not block an update; the fresh value is sent', async () => {
    const actual = await readActualState(caller, 'dev');
    const plan = computePlan(desired(6), actual, { prune: false });
    expect(plan.summary.change).toBe(1);
    const result = await applyPlan(plan, desired(6), actual, { caller }, options());
    expect(result.failed).toEqual([]);
    expect(await maxTurns()).toBe(6);
    // Merged onto the re-read, not onto the plan's read: the server's current value goes back.
    const sent = caller.upserted.at(-1) as { model: { resolvedAt: string } };
    expect(sent.model.resolvedAt).toBe(`2026-01-01T00:00:${String(caller.reads).padStart(2, '0')}Z`);
  });

  it.each<[string, (current: JsonObject) => JsonObject]>([
    ['a field the configuration manages', (current) => ({ ...current, system: 'Be long.' })],
    ['an unknown definition field (a write all the same: a new version)', (current) => ({ ...current, futureField: 'set elsewhere' })],
  ])('an out-of-band edit of %s between plan and apply stops the write', async (_name, edit) => {
    const before = await maxTurns();
    const actual = await readActualState(caller, 'dev');
    const plan = computePlan(desired(before! + 1), actual, { prune: false });
    await editElsewhere(edit);
    const result = await applyPlan(plan, desired(before! + 1), actual, { caller }, options());
    expect(result.failed).toEqual([expect.objectContaining({ address: 'agent/bot', code: 'changed_since_plan' })]);
    expect(await maxTurns()).toBe(before);
  });
});
