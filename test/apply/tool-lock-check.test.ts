// apply's tool-surface gate (apply/tool-lock-check.ts) after the writes: a connection the apply
// wrote and already asked for its tools (resource-writers.ts) is locked from that answer, not asked
// again; any other is read as before (connections.list, then connections.test).
import { describe, expect, it } from 'vitest';
import type { RequestOf, Rpc, RpcCaller } from '../../src/api/operations.js';
import { toolLockGate } from '../../src/apply/tool-lock-check.js';
import type { ToolDescriptor } from '../../src/model/api.js';
import type { ActualState, DesiredState, Plan } from '../../src/model/resources.js';
import type { ToolSurfaceLock } from '../../src/model/tool-lock.js';

const TOOLS: ToolDescriptor[] = [
  { name: 'search', description: 'Search.', inputSchema: { type: 'object' } },
  { name: 'create_ticket', annotations: { destructiveHint: true } },
];

function setup(created: string[]) {
  const calls: Array<{ rpc: Rpc; request: unknown }> = [];
  const client: RpcCaller = {
    async call(rpc, request) {
      calls.push({ rpc, request });
      if (rpc === 'connections.list') return created.map((name) => ({ id: `id-${name}`, name })) as never;
      if (rpc === 'connections.test') return { tools: TOOLS } as never;
      throw new Error(`unexpected ${rpc}`);
    },
  };
  const plan = {
    changes: [
      ...created.map((name) => ({ address: `connection/${name}`, kind: 'connection', name, action: 'create', fields: [], dependsOn: [] })),
      { address: 'agent/bot', kind: 'agent', name: 'bot', action: 'create', fields: [], dependsOn: [] },
    ],
  } as unknown as Plan;
  const desired = {
    target: { name: 'dev', slug: 'dev' },
    resources: [{ kind: 'agent', name: 'bot', spec: { tools: created.map((name) => ({ type: 'connection', name })) }, writeOnly: {}, references: [] }],
  } as unknown as DesiredState;
  const actual = { environmentSlug: 'dev', resources: [], missingOperations: [] } as unknown as ActualState;
  const saved: ToolSurfaceLock[] = [];
  const said: string[] = [];
  return { calls, client, plan, desired, actual, saved, said };
}

describe('toolLockGate finish', () => {
  it('locks a connection from the answer the apply already had, and reads only the others', async () => {
    const { calls, client, plan, desired, actual, saved, said } = setup(['alpha', 'beta']);
    const gate = await toolLockGate({
      client,
      plan,
      desired,
      actual,
      lock: undefined,
      updateLock: false,
      save: async (lock) => void saved.push(lock),
      say: (line) => said.push(line),
      renderDiff: () => '',
    });
    expect(calls).toEqual([]);
    await gate.finish(new Map([['alpha', { id: 'id-alpha', tools: TOOLS }]]));
    expect(calls).toEqual([
      { rpc: 'connections.list', request: {} },
      { rpc: 'connections.test', request: { id: 'id-beta' } satisfies RequestOf<'connections.test'> },
    ]);
    expect(said).toEqual([
      'Locking connection alpha (created by this apply): 2 tools, 2 destructive',
      'Locking connection beta (created by this apply): 2 tools, 2 destructive',
    ]);
    expect(Object.keys(saved[0]!.environments.dev!).sort()).toEqual(['alpha', 'beta']);
    expect(saved[0]!.environments.dev!.alpha).toEqual(saved[0]!.environments.dev!.beta);
  });

  it('asks nothing when every connection it must lock was answered during the apply', async () => {
    const { calls, client, plan, desired, actual, saved } = setup(['alpha']);
    const gate = await toolLockGate({
      client,
      plan,
      desired,
      actual,
      lock: undefined,
      updateLock: false,
      save: async (lock) => void saved.push(lock),
      say: () => undefined,
      renderDiff: () => '',
    });
    await gate.finish(new Map([['alpha', { id: 'id-alpha', tools: TOOLS }]]));
    expect(calls).toEqual([]);
    expect(saved[0]!.environments.dev!.alpha!.tools.map((tool) => tool.name)).toEqual(['create_ticket', 'search']);
  });

  it('without answers from the apply, reads them all (as before)', async () => {
    const { calls, client, plan, desired, actual, saved } = setup(['alpha']);
    const gate = await toolLockGate({
      client,
      plan,
      desired,
      actual,
      lock: undefined,
      updateLock: false,
      save: async (lock) => void saved.push(lock),
      say: () => undefined,
      renderDiff: () => '',
    });
    await gate.finish();
    expect(calls.map((call) => call.rpc)).toEqual(['connections.list', 'connections.test']);
    expect(saved).toHaveLength(1);
  });
});
