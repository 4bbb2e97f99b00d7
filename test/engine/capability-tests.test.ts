// Capability test assertions: can / cannot, withDecision, subagents, globs, sandbox, connections
// without a lock entry, and the chain of definitions each result names.
import { describe, expect, it } from 'vitest';
import { agentPattern, appliesIn, type CapabilityTestInputs, type DefinitionRef, evaluateAssertion } from '../../src/engine/capability-tests.js';
import type { CapabilityAssertion } from '../../src/model/capability-test.js';
import type { JsonObject } from '../../src/model/resources.js';
import type { LockedConnection } from '../../src/model/tool-lock.js';

const HINTS = { destructiveHint: true, idempotentHint: false, openWorldHint: true, readOnlyHint: false };
const surface = (...names: string[]): LockedConnection => ({ tools: names.map((name) => ({ name, digest: `sha256:${name}`, annotations: HINTS })) });

/** A location that says what was located, so the chain's steps can be checked by it. */
const locate = (ref: DefinitionRef) =>
  ref.kind === 'lock'
    ? { file: 'agentform.lock.yaml', line: ref.toolIndex + 1, col: 1 }
    : { file: `${ref.kind}/${ref.name}`, line: ref.path.length + 1, col: ref.path.length > 0 ? 2 : 1 };

const AGENTS: Array<{ name: string; spec: JsonObject }> = [
  {
    name: 'support',
    spec: {
      tools: [
        { type: 'builtin', name: 'current_time' },
        { type: 'connection', name: 'crm' },
      ],
      policies: { toolCalls: { default: 'allow', byTool: { delete_customer: 'ask', wipe: 'deny' } } },
      subagents: [{ kind: 'agent', name: 'research', agent: 'researcher' }],
    },
  },
  { name: 'researcher', spec: { tools: [{ type: 'connection', name: 'docs' }], policies: { toolCalls: { hook: { connection: 'gate' } } } } },
  { name: 'support-eu', spec: { tools: [{ type: 'connection', name: 'crm' }] } },
  { name: 'sandboxed', spec: { sandbox: { tools: { preset: 'default', allow: ['exec'], deny: ['rm'] } } } },
  { name: 'unlocked', spec: { tools: [{ type: 'connection', name: 'billing' }] } },
];

const inputs = (overrides: Partial<CapabilityTestInputs> = {}): CapabilityTestInputs => ({
  environment: 'prod',
  agents: AGENTS,
  connections: new Set(['crm', 'docs', 'billing']),
  surfaces: { crm: surface('delete_customer', 'find_customer', 'wipe'), docs: surface('search') },
  declaredAgents: [...AGENTS.map((agent) => agent.name), 'only-in-dev'],
  locate,
  ...overrides,
});

const assertion = (agent: string, expect: 'can' | 'cannot', tool: string, withDecision?: boolean): CapabilityAssertion => ({
  name: `${agent} ${expect} ${tool}`,
  agent,
  expect,
  tool,
  ...(withDecision !== undefined ? { withDecision } : {}),
  location: { file: 'x.test.yaml', line: 1, col: 1 },
});

describe('evaluateAssertion', () => {
  it.each([
    // agent, expect, tool, withDecision, status
    ['support', 'can', 'crm.find_customer', undefined, 'pass'],
    ['support', 'can', 'crm.find_customer', false, 'pass'],
    ['support', 'can', 'crm.find_customer', true, 'fail'],
    ['support', 'cannot', 'crm.find_customer', true, 'pass'],
    ['support', 'can', 'crm.delete_customer', true, 'pass'],
    ['support', 'cannot', 'crm.delete_customer', false, 'pass'],
    ['support', 'cannot', 'crm.delete_customer', undefined, 'fail'],
    ['support', 'can', 'crm.wipe', undefined, 'fail'],
    ['support', 'cannot', 'crm.wipe', undefined, 'pass'],
    ['support', 'cannot', 'crm.not_in_lock', undefined, 'pass'],
    ['support', 'can', 'crm.not_in_lock', undefined, 'fail'],
    ['support', 'can', 'builtin.current_time', false, 'pass'],
    ['support', 'can', 'builtin.web_search', undefined, 'fail'],
    ['researcher', 'can', 'crm.find_customer', undefined, 'fail'],
    // through the subagent, whose hook decides
    ['support', 'can', 'docs.search', true, 'pass'],
    ['support', 'can', 'docs.search', false, 'fail'],
    // no policy at all: the server default is assumed to run the call without a decision
    ['support-eu', 'can', 'crm.delete_customer', false, 'pass'],
    // every agent the glob matches must satisfy the assertion
    ['support*', 'can', 'crm.find_customer', undefined, 'pass'],
    ['support*', 'cannot', 'crm.delete_customer', false, 'fail'],
    ['sandboxed', 'can', 'sandbox.exec', false, 'pass'],
    ['sandboxed', 'cannot', 'sandbox.rm', undefined, 'pass'],
    ['sandboxed', 'can', 'sandbox.ls', undefined, 'error'],
    ['unlocked', 'can', 'billing.charge', undefined, 'error'],
    ['unlocked', 'cannot', 'billing.charge', undefined, 'error'],
    ['nobody*', 'cannot', 'crm.wipe', undefined, 'error'],
  ] as const)('%s %s %s (withDecision %s): %s', (agent, expectation, tool, withDecision, status) => {
    expect(evaluateAssertion(assertion(agent, expectation, tool, withDecision), inputs())?.status).toBe(status);
  });

  it('is not checked in an environment where no agent matches, when another declares one', () => {
    expect(evaluateAssertion(assertion('only-in-dev', 'can', 'crm.find_customer'), inputs())).toBeUndefined();
  });

  it('names the chain that grants the capability, subagent included', () => {
    const result = evaluateAssertion(assertion('support', 'cannot', 'docs.search'), inputs());
    expect(result?.status).toBe('fail');
    expect(result?.message).toBe('support can call docs.search after a decision (through a subagent)');
    expect(result?.chain.map((step) => `${step.what} @ ${step.location?.file}:${step.location?.line}`)).toEqual([
      'agent support @ agent/support:1',
      'support: subagent researcher @ agent/support:3',
      'researcher: tools[0]: connection docs @ agent/researcher:3',
      'connection docs @ connection/docs:1',
      'agentform.lock.yaml: connection docs in prod has search (destructive) @ agentform.lock.yaml:1',
      'researcher: policies.toolCalls.hook decides (no byTool entry, no default) @ agent/researcher:4',
    ]);
  });

  it('names what denies it: the policy entry, or what is missing', () => {
    const denied = evaluateAssertion(assertion('support', 'can', 'crm.wipe'), inputs());
    expect(denied?.chain.at(-1)).toEqual({ what: 'support: policies.toolCalls.byTool.wipe: deny', location: { file: 'agent/support', line: 5, col: 2 } });
    const missing = evaluateAssertion(assertion('support', 'can', 'crm.not_in_lock'), inputs());
    expect(missing?.chain.map((step) => step.what)).toContain('agentform.lock.yaml: connection crm in prod has no tool not_in_lock');
    const throughSubagent = evaluateAssertion(assertion('support', 'can', 'docs.fetch'), inputs());
    expect(throughSubagent?.chain.map((step) => step.what)).toEqual([
      'agent support',
      'support: tools does not name connection docs',
      'support: subagent researcher',
      'agentform.lock.yaml: connection docs in prod has no tool fetch',
    ]);
    const notNamed = evaluateAssertion(assertion('researcher', 'can', 'crm.find_customer'), inputs());
    expect(notNamed?.chain.map((step) => step.what)).toContain('researcher: tools does not name connection crm');
  });

  it('says why it cannot decide: no lock entry for the connection', () => {
    const result = evaluateAssertion(assertion('unlocked', 'can', 'billing.charge'), inputs());
    expect(result?.message).toContain('agentform.lock.yaml has no entry for connection billing in prod');
  });

  it('a connection named like an Object property has no lock entry unless the lock has one', () => {
    const agents = [{ name: 'odd', spec: { tools: [{ type: 'connection', name: 'constructor' }] } }];
    expect(evaluateAssertion(assertion('odd', 'can', 'constructor.x'), inputs({ agents, declaredAgents: ['odd'] }))?.status).toBe('error');
  });

  it('a surface from another environment does not count', () => {
    expect(evaluateAssertion(assertion('support', 'can', 'crm.find_customer'), inputs({ surfaces: { docs: surface('search') } }))?.status).toBe('error');
  });
});

describe('appliesIn', () => {
  it.each([
    [undefined, 'prod', true],
    [['prod'], 'prod', true],
    [['dev', 'staging'], 'prod', false],
  ] as const)('environments %j, checked in %s: %s', (environments, environment, expected) => {
    expect(appliesIn(environments ? { environments: [...environments] } : {}, environment)).toBe(expected);
  });
});

describe('agentPattern', () => {
  it.each([
    ['support', 'support', true],
    ['support', 'support-eu', false],
    ['support*', 'support-eu', true],
    ['s?pport', 'support', true],
    ['a.b', 'axb', false],
  ] as const)('%s matches %s: %s', (glob, name, matches) => {
    expect(agentPattern(glob).test(name)).toBe(matches);
  });
});

describe('as which identity', () => {
  // support admits anonymous callers (identity not required); guarded requires one, of scope user.
  const agents: Array<{ name: string; spec: JsonObject }> = [
    ...AGENTS,
    {
      name: 'guarded',
      spec: {
        tools: [
          { type: 'connection', name: 'crm' },
          { type: 'builtin', name: 'current_time' },
        ],
        identity: { required: true, scopesAllowed: ['user'] },
        policies: { toolCalls: { default: 'allow' } },
      },
    },
    { name: 'front', spec: { subagents: [{ kind: 'agent', name: 'g', agent: 'guarded' }] } },
  ];
  const grants = [
    { name: 'crm:user:alice', connection: 'crm', scope: 'user', id: 'alice' },
    { name: 'crm:team:ops', connection: 'crm', scope: 'team', id: 'ops' },
  ];
  const withIdentity = (overrides: Partial<CapabilityTestInputs> = {}) => inputs({ agents, grants, ...overrides });
  const as = (agent: string, expect: 'can' | 'cannot', tool: string, who: string): CapabilityAssertion => ({ ...assertion(agent, expect, tool), as: who });

  it.each([
    // agent, expect, tool, as, status
    ['guarded', 'can', 'crm.find_customer', 'user:alice', 'pass'],
    ['guarded', 'cannot', 'crm.find_customer', 'user:alice', 'fail'],
    ['guarded', 'cannot', 'crm.find_customer', 'user:bob', 'pass'],
    ['guarded', 'can', 'crm.find_customer', 'user:bob', 'fail'],
    // no grant and no identity required on the chain: the connection's own credential is assumed
    ['support', 'cannot', 'crm.find_customer', 'user:bob', 'fail'],
    ['support', 'can', 'crm.find_customer', 'user:bob', 'fail'],
    ['guarded', 'cannot', 'crm.find_customer', 'anonymous', 'pass'],
    ['guarded', 'cannot', 'builtin.current_time', 'anonymous', 'pass'],
    ['guarded', 'can', 'builtin.current_time', 'user:bob', 'pass'],
    // a scope outside scopesAllowed: assumed admitted, as the plan's identity reach assumes
    ['guarded', 'can', 'crm.find_customer', 'team:ops', 'pass'],
    ['support', 'can', 'crm.find_customer', 'anonymous', 'pass'],
    ['support', 'can', 'builtin.current_time', 'anonymous', 'pass'],
    // through a subagent that requires an identity: the anonymous caller stops there
    ['front', 'cannot', 'crm.find_customer', 'anonymous', 'pass'],
    ['front', 'can', 'crm.find_customer', 'user:alice', 'pass'],
  ] as const)('%s %s %s as %s: %s', (agent, expectation, tool, who, status) => {
    expect(evaluateAssertion(as(agent, expectation, tool, who), withIdentity())?.status).toBe(status);
  });

  it('a failing cannot shows the chain of definitions, the grant included, located', () => {
    const result = evaluateAssertion(as('guarded', 'cannot', 'crm.find_customer', 'user:alice'), withIdentity());
    expect(result?.message).toBe('guarded can call crm.find_customer without a decision as user:alice');
    expect(result?.chain.map((step) => step.what)).toEqual([
      'agent guarded',
      'guarded: tools[0]: connection crm',
      'connection crm',
      'grant crm:user:alice',
      'agentform.lock.yaml: connection crm in prod has find_customer (destructive)',
      'guarded: policies.toolCalls.default: allow',
    ]);
    expect(result?.chain[3]?.location).toEqual({ file: 'grant/crm:user:alice', line: 1, col: 1 });
  });

  it('a failing can names what refuses the caller: identity.required, or a missing grant', () => {
    const anonymous = evaluateAssertion(as('front', 'can', 'crm.find_customer', 'anonymous'), withIdentity());
    expect(anonymous?.message).toBe('front cannot call crm.find_customer as anonymous');
    expect(anonymous?.chain.map((step) => step.what)).toEqual([
      'agent front',
      'front: tools does not name connection crm',
      'front: identity.required is not true: an anonymous caller is admitted',
      'front: subagent guarded',
      'guarded: identity.required: true: an anonymous caller is refused',
    ]);
    const bob = evaluateAssertion(as('guarded', 'can', 'crm.find_customer', 'user:bob'), withIdentity());
    expect(bob?.chain.map((step) => step.what)).toEqual(['agent guarded', 'connection crm has no grant for user:bob in prod']);
  });

  it("a cannot for an identity with no grant, where no agent requires one, assumes the connection's own credential", () => {
    const result = evaluateAssertion(as('support', 'cannot', 'crm.find_customer', 'user:bob'), withIdentity());
    expect(result?.chain.map((step) => step.what)).toContain(
      'connection crm has no grant for user:bob in prod: its own credential is assumed (no agent on the chain requires an identity; not shown)',
    );
  });

  it.each([
    ['the closed chain listed first', ['closed', 'open']],
    ['the open chain listed first', ['open', 'closed']],
  ])('a diamond: the worst case holds through the open chain whichever comes first (%s)', (_, order) => {
    const diamond: Array<{ name: string; spec: JsonObject }> = [
      { name: 'hub', spec: { subagents: order.map((agent) => ({ agent })) } },
      { name: 'closed', spec: { identity: { required: true }, subagents: [{ agent: 'leaf' }] } },
      { name: 'open', spec: { subagents: [{ agent: 'leaf' }] } },
      { name: 'leaf', spec: { tools: [{ type: 'connection', name: 'crm' }], policies: { toolCalls: { default: 'allow' } } } },
    ];
    const run = (who: string) => evaluateAssertion(as('hub', 'cannot', 'crm.find_customer', who), withIdentity({ agents: diamond }))?.status;
    expect([run('user:bob'), run('anonymous')]).toEqual(['fail', 'fail']);
  });

  it("an anonymous caller reaches a connection through the connection's own credential", () => {
    const result = evaluateAssertion(as('support', 'can', 'crm.find_customer', 'anonymous'), withIdentity());
    expect(result?.chain.map((step) => step.what)).toContain('connection crm: its own credential (an anonymous caller has no grant)');
  });
});
