// Strict mode: each agent's tool policy derived from the lock (default deny, one byTool entry per
// tool the agent is known to reach, the user's own entries kept as written).
import { describe, expect, it } from 'vitest';
import { deriveStrictPolicy, lockedToolDecision, withServedButUnlocked, withStrictToolPolicies } from '../../src/engine/strict-tools.js';
import type { ToolSurfaceReport } from '../../src/engine/tool-surface.js';
import type { JsonObject } from '../../src/model/resources.js';
import { desired, desiredState } from './builders.js';
import { GITHUB_SURFACE } from './policy/builders.js';

const surfaces = { github: GITHUB_SURFACE };
const githubTools = GITHUB_SURFACE.tools.map((tool) => tool.name);
const gate = { connection: 'gate' };

describe('lockedToolDecision', () => {
  it.each([
    ['nothing written: ask, never more than a server may fill in', {}, 'ask'],
    ['default allow: allow', { default: 'allow' }, 'allow'],
    ['default deny: no entry, the tool stays denied', { default: 'deny' }, undefined],
    ['another decision value is kept', { default: 'ask' }, 'ask'],
    ['a hook and no default: the hook must still decide', { hook: gate }, 'ask'],
    ['a hook with default allow: the hook must still decide', { hook: gate, default: 'allow' }, 'ask'],
    ['a hook with default deny: denied', { hook: gate, default: 'deny' }, undefined],
  ] as const)('%s', (_, toolCalls, expected) => {
    expect(lockedToolDecision(toolCalls as JsonObject)).toBe(expected);
  });
});

describe('deriveStrictPolicy', () => {
  const connection = { type: 'connection', name: 'github' };
  it.each<{ name: string; spec: JsonObject; byTool: JsonObject; derived: string[]; unlocked: string[] }>([
    {
      name: 'locked tools get allow, the default becomes deny',
      spec: { tools: [connection], policies: { toolCalls: { default: 'allow' } } },
      byTool: Object.fromEntries(githubTools.map((tool) => [tool, 'allow'])),
      derived: githubTools,
      unlocked: [],
    },
    {
      name: "the user's byTool entries are kept as written and not derived",
      spec: { tools: [connection], policies: { toolCalls: { default: 'allow', byTool: { [githubTools[0]!]: 'deny', other: 'ask' } } } },
      byTool: { ...Object.fromEntries(githubTools.map((tool) => [tool, 'allow'])), [githubTools[0]!]: 'deny', other: 'ask' },
      derived: githubTools.slice(1),
      unlocked: [],
    },
    {
      name: "the user's default is the decision of locked tools",
      spec: { tools: [connection], policies: { toolCalls: { default: 'ask' } } },
      byTool: Object.fromEntries(githubTools.map((tool) => [tool, 'ask'])),
      derived: githubTools,
      unlocked: [],
    },
    {
      name: 'default deny written: nothing derived',
      spec: { tools: [connection], policies: { toolCalls: { default: 'deny' } } },
      byTool: {},
      derived: [],
      unlocked: [],
    },
    {
      name: 'builtin tools and the sandbox allow list (less its deny list) are known tools too',
      spec: {
        tools: [{ type: 'builtin', name: 'current_time' }],
        sandbox: { tools: { allow: ['git', 'rm'], deny: ['rm'] } },
        policies: { toolCalls: { default: 'allow' } },
      },
      byTool: { current_time: 'allow', git: 'allow' },
      derived: ['current_time', 'git'],
      unlocked: [],
    },
    {
      name: 'a tools[] entry of another type than builtin or connection: nothing derived',
      spec: { tools: [{ type: 'future-kind', name: 'wipe' }], policies: { toolCalls: { default: 'allow' } } },
      byTool: {},
      derived: [],
      unlocked: [],
    },
    {
      name: 'a connection without a lock entry: none of its tools is allowed',
      spec: { tools: [{ type: 'connection', name: 'crm' }] },
      byTool: {},
      derived: [],
      unlocked: ['crm'],
    },
  ])('$name', ({ spec, byTool, derived, unlocked }) => {
    const result = deriveStrictPolicy('support', spec, surfaces);
    const toolCalls = (result.spec.policies as JsonObject).toolCalls as JsonObject;
    expect(toolCalls.default).toBe('deny');
    expect(toolCalls.byTool).toEqual(byTool);
    expect(result.derived.entries.map((entry) => entry.tool)).toEqual([...derived].sort());
    expect(result.derived.unlockedConnections).toEqual(unlocked);
  });

  it('keeps the rest of the policy (hook, onError, decisions) and records what the user wrote as default', () => {
    const spec = { tools: [connection], policies: { toolCalls: { hook: gate, default: 'allow', onError: 'deny' }, decisions: { onExpire: 'deny' } } };
    const result = deriveStrictPolicy('support', spec, surfaces);
    expect(result.spec.policies).toMatchObject({ toolCalls: { hook: gate, default: 'deny', onError: 'deny' }, decisions: { onExpire: 'deny' } });
    expect(result.derived).toMatchObject({ agent: 'support', default: 'deny', userDefault: 'allow' });
    expect(result.derived.entries[0]).toEqual({ tool: githubTools.slice().sort()[0], decision: 'ask', from: 'connection github' });
    expect(spec.policies.toolCalls.default).toBe('allow');
  });
});

describe('withStrictToolPolicies', () => {
  it('derives for every agent, sorted, and leaves other resources alone', () => {
    const state = desiredState([
      desired('agent', 'b', { tools: [{ type: 'connection', name: 'github' }] }),
      desired('connection', 'github', { url: 'http://127.0.0.1/mcp' }),
      desired('agent', 'a', { tools: [] }),
    ]);
    const result = withStrictToolPolicies(state, surfaces);
    expect(result.derived.map((policy) => policy.agent)).toEqual(['a', 'b']);
    expect(result.desired.resources[1]).toBe(state.resources[1]);
    expect(((result.desired.resources[2]!.spec.policies as JsonObject).toolCalls as JsonObject).default).toBe('deny');
  });
});

describe('withStrictToolPolicies: declarative promotion', () => {
  const promotion = { fromEnvironment: 'staging', version: 3 };
  const tools = [{ type: 'connection', name: 'github' }];
  // The source's live policy, itself derived in a strict source: its deny and entries are not the user's.
  const sourceLive = { default: 'deny', byTool: { [githubTools[0]!]: 'allow', wipe: 'allow' } };
  const promoted = (judgedSpec?: JsonObject) =>
    desiredState([desired('agent', 'support', { tools, policies: { toolCalls: sourceLive } }, { promotion, ...(judgedSpec ? { judgedSpec } : {}) })]);

  it.each<{ name: string; own: JsonObject; decision: string; userDefault: string | undefined }>([
    { name: 'the target writes no policy: derived from the lock as ask', own: { tools }, decision: 'ask', userDefault: undefined },
    { name: "the target's own default decides", own: { tools, policies: { toolCalls: { default: 'allow' } } }, decision: 'allow', userDefault: 'allow' },
  ])('$name', ({ own, decision, userDefault }) => {
    const configured = desiredState([desired('agent', 'support', own, { promotion })]);
    const result = withStrictToolPolicies(promoted(), surfaces, configured);
    const toolCalls = (result.desired.resources[0]!.spec.policies as JsonObject).toolCalls as JsonObject;
    expect(toolCalls.byTool).toEqual(Object.fromEntries(githubTools.map((tool) => [tool, decision])));
    expect(result.derived[0]?.userDefault).toBe(userDefault);
  });

  it('what the rules judge of a promoted agent carries the derived policy', () => {
    const configured = desiredState([desired('agent', 'support', { tools }, { promotion })]);
    const result = withStrictToolPolicies(promoted({ tools, policies: { toolCalls: { default: 'allow' } } }), surfaces, configured);
    const resource = result.desired.resources[0]!;
    expect((resource.judgedSpec!.policies as JsonObject).toolCalls).toEqual((resource.spec.policies as JsonObject).toolCalls);
  });
});

describe('withServedButUnlocked', () => {
  const added = (name: string) => ({ name, annotations: GITHUB_SURFACE.tools[0]!.annotations, digest: 'sha256:x' });
  const report: ToolSurfaceReport = {
    checked: true,
    connections: [
      { connection: 'github', status: 'differs', diff: { added: [added('wipe'), added('mine')], removed: [], changed: [] } },
      { connection: 'crm', status: 'differs', diff: { added: [added('other')], removed: [], changed: [] } },
    ],
  };
  it.each([
    ['names the added tools of the connections the agent uses, sorted', { tools: [{ type: 'connection', name: 'github' }] }, ['mine', 'wipe']],
    [
      "leaves out a tool the user's byTool decides",
      { tools: [{ type: 'connection', name: 'github' }], policies: { toolCalls: { byTool: { mine: 'ask' } } } },
      ['wipe'],
    ],
    ['nothing for an agent that does not use the connection', { tools: [{ type: 'connection', name: 'slack' }] }, []],
  ])('%s', (_, spec, denied) => {
    const state = desiredState([desired('agent', 'support', spec as JsonObject)]);
    const [policy] = withServedButUnlocked(withStrictToolPolicies(state, {}).derived, state, report);
    expect(policy?.denied?.map((entry) => entry.tool)).toEqual(denied);
  });

  it('an added tool named like a derived entry of elsewhere is a collision, not hidden (derived state read)', () => {
    const state = desiredState([
      desired('agent', 'support', {
        tools: [
          { type: 'connection', name: 'github' },
          { type: 'builtin', name: 'mine' },
        ],
        policies: { toolCalls: { default: 'allow' } },
      }),
    ]);
    const strict = withStrictToolPolicies(state, {});
    const [policy] = withServedButUnlocked(strict.derived, strict.desired, report);
    expect(policy?.denied?.map((entry) => entry.tool)).toEqual(['wipe']);
    expect(policy?.collisions).toEqual([{ tool: 'mine', decision: 'allow', from: 'connection github' }]);
  });

  it('a report that did not check leaves the policies as they were', () => {
    const state = desiredState([desired('agent', 'support', { tools: [] })]);
    const derived = withStrictToolPolicies(state, {}).derived;
    expect(withServedButUnlocked(derived, state, { checked: false, reason: 'no control scope' })).toEqual(derived);
  });
});
