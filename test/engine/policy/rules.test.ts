// Every built-in rule: one configuration it accepts and one it flags, in an environment of kind
// production (error by default) and in another one (warning by default).
import { describe, expect, it } from 'vitest';
import { BUILTIN_RULE_IDS, BUILTIN_RULES, evaluatePolicy } from '../../../src/engine/policy/index.js';
import type { DesiredResource } from '../../../src/model/resources.js';
import { desired } from '../builders.js';
import { environmentWith, goodAgent } from './builders.js';

interface RuleCase {
  pass: DesiredResource[];
  fail: DesiredResource[];
  /** The spec path the finding points at. */
  path: Array<string | number>;
  /** Environment settings without spend caps (the environment rule). */
  noSpend?: boolean;
}

const agent = (spec = goodAgent()) => desired('agent', 'support', spec);
const key = (spec: Record<string, unknown>) => desired('apiKey', 'ci', spec as DesiredResource['spec']);
const grant = desired('grant', 'github:user:alice', { connection: 'github', identity: { scope: 'user', id: 'alice' } });
const bounded = { subagentPolicy: { selfDelegation: false, maxDepth: 3 } };
const chain = (length: number) =>
  Array.from({ length }, (_, index) =>
    desired('agent', `a${index}`, goodAgent(index + 1 < length ? { subagents: [{ kind: 'agent', name: 'next', agent: `a${index + 1}` }], ...bounded } : {})),
  );

const CASES: Record<string, RuleCase> = {
  'destructive-tool-without-decision': {
    pass: [agent(goodAgent({ tools: [{ type: 'connection', name: 'github' }] }))],
    fail: [
      agent(goodAgent({ tools: [{ type: 'connection', name: 'github' }], policies: { toolCalls: { default: 'deny', byTool: { delete_repo: 'allow' } } } })),
    ],
    path: ['policies', 'toolCalls'],
  },
  'default-allow-without-hook': {
    pass: [agent()],
    fail: [agent(goodAgent({ policies: { toolCalls: { default: 'allow' }, decisions: { onExpire: 'deny' } } }))],
    path: ['policies', 'toolCalls', 'default'],
  },
  'hook-fails-open': {
    pass: [agent()],
    fail: [agent(goodAgent({ policies: { toolCalls: { hook: { connection: 'gate' }, default: 'allow', onError: 'deny', onTimeout: 'allow' } } }))],
    path: ['policies', 'toolCalls', 'onTimeout'],
  },
  'decision-expiry-not-deny': {
    pass: [agent()],
    fail: [agent(goodAgent({ policies: { toolCalls: { hook: { connection: 'gate' } }, decisions: { onExpire: 'allow' } } }))],
    path: ['policies', 'decisions', 'onExpire'],
  },
  'sandbox-unrestricted-egress': {
    pass: [agent(goodAgent({ sandbox: { tools: { preset: 'read-only' }, network: { egress: { mode: 'allowlist' } } } }))],
    fail: [agent(goodAgent({ sandbox: { tools: { preset: 'read-only' }, network: { egress: { mode: 'unrestricted' } } } }))],
    path: ['sandbox', 'network', 'egress', 'mode'],
  },
  'sandbox-tools-too-wide': {
    pass: [agent(goodAgent({ sandbox: { tools: { preset: 'full', deny: ['rm'] } } }))],
    fail: [agent(goodAgent({ sandbox: { tools: { preset: 'full', deny: [] } } }))],
    path: ['sandbox', 'tools', 'preset'],
  },
  'limits-missing': {
    pass: [agent()],
    fail: [agent(goodAgent({ limits: { maxTurns: 10 } }))],
    path: ['limits'],
  },
  'environment-spend-caps-missing': {
    pass: [],
    fail: [],
    noSpend: true,
    path: ['spend'],
  },
  'key-spend-caps-missing': {
    pass: [key({ scopes: ['read'], spend: { dailyUsd: 1 } })],
    fail: [key({ scopes: ['read'] })],
    path: ['spend'],
  },
  'control-key-without-expiry': {
    pass: [key({ scopes: ['read', 'control'], spend: { dailyUsd: 1 }, expiresAt: '2027-01-01T00:00:00Z' })],
    fail: [key({ scopes: ['read', 'control'], spend: { dailyUsd: 1 } })],
    path: ['scopes'],
  },
  'identity-not-required-with-grants': {
    pass: [grant, agent(goodAgent({ tools: [{ type: 'connection', name: 'github' }], identity: { required: true } }))],
    fail: [grant, agent(goodAgent({ tools: [{ type: 'connection', name: 'github' }], identity: { required: false } }))],
    path: ['identity'],
  },
  'grant-scope-not-allowed': {
    pass: [grant, agent(goodAgent({ tools: [{ type: 'connection', name: 'github' }], identity: { required: true, scopesAllowed: ['user'] } }))],
    fail: [grant, agent(goodAgent({ tools: [{ type: 'connection', name: 'github' }], identity: { required: true, scopesAllowed: ['team'] } }))],
    path: ['identity', 'scope'],
  },
  'subagent-depth': {
    pass: chain(4),
    fail: chain(5),
    path: ['subagents'],
  },
  'fallback-provider-without-secret': {
    pass: [agent(goodAgent({ model: { provider: 'openai', model: 'gpt-4o', fallback: { models: [{ provider: 'openai', model: 'gpt-4o-mini' }] } } }))],
    fail: [
      desired('provider', 'anthropic', { type: 'anthropic' }),
      agent(
        goodAgent({
          model: {
            provider: 'openai',
            model: 'gpt-4o',
            fallback: {
              models: [
                { provider: 'openai', model: 'gpt-4o-mini' },
                { provider: 'anthropic', model: 'claude' },
              ],
            },
          },
        }),
      ),
    ],
    path: ['model', 'fallback', 'models', 1, 'provider'],
  },
};

describe('built-in policy rules', () => {
  it('the table covers every built-in rule, and every rule has a rationale', () => {
    expect(Object.keys(CASES).sort()).toEqual([...BUILTIN_RULE_IDS].sort());
    for (const rule of BUILTIN_RULES) expect(rule.rationale.length, rule.id).toBeGreaterThan(20);
  });

  // Every rule is a warning outside production; in production, an error unless its default says otherwise.
  const defaultIn = (rule: string, kind: 'production' | 'development') =>
    BUILTIN_RULES.find((builtin) => builtin.id === rule)?.severity[kind === 'production' ? 'production' : 'other'];
  const rows = Object.entries(CASES).flatMap(([rule, item]) =>
    (['production', 'development'] as const).map((kind) => ({ rule, item, kind, severity: defaultIn(rule, kind) })),
  );

  it('only grant-scope-not-allowed is a warning in production by default (the server may refuse the grant anyway)', () => {
    expect(BUILTIN_RULES.filter((rule) => rule.severity.production !== 'error').map((rule) => rule.id)).toEqual(['grant-scope-not-allowed']);
    expect(BUILTIN_RULES.every((rule) => rule.severity.other === 'warning')).toBe(true);
  });

  it.each(rows)('$rule in a $kind environment: the good case passes, the bad one is a $severity', ({ rule, item, kind, severity }) => {
    const of = (resources: DesiredResource[], spend: boolean) =>
      evaluatePolicy(environmentWith(resources, { kind, spend })).filter((finding) => finding.rule === rule);
    expect(of(item.pass, true)).toEqual([]);
    const found = of(item.fail, !item.noSpend);
    expect(found.length, JSON.stringify(found)).toBeGreaterThan(0);
    expect(found[0]).toMatchObject({ rule, severity, path: item.path });
  });

  it('a good environment has no finding at all', () => {
    expect(evaluatePolicy(environmentWith([agent(), key({ scopes: ['read'], spend: { dailyUsd: 1 } })], { kind: 'production' }))).toEqual([]);
  });
});

/**
 * The input of each rule left to the server (whose default the API does not show): the rule judges
 * it as its worst value and says it is not set, so the verdict does not wait for the first apply.
 */
const LEFT_TO_THE_SERVER: Array<[string, DesiredResource[], Array<string | number>, RegExp]> = [
  [
    'destructive-tool-without-decision',
    [agent(goodAgent({ tools: [{ type: 'connection', name: 'github' }], policies: { decisions: { onExpire: 'deny' } } }))],
    ['policies', 'toolCalls'],
    /github\.delete_repo \(destructive\) runs without a decision/,
  ],
  [
    'default-allow-without-hook',
    [agent(goodAgent({ policies: { toolCalls: { byTool: {} }, decisions: { onExpire: 'deny' } } }))],
    ['policies', 'toolCalls'],
    /default is not set and no hook decides: the server's default may/,
  ],
  [
    'hook-fails-open',
    [agent(goodAgent({ policies: { toolCalls: { hook: { connection: 'gate' }, default: 'allow', onTimeout: 'deny' }, decisions: { onExpire: 'deny' } } }))],
    ['policies', 'toolCalls'],
    /onError is not set: the server's default may fail open; set it to deny/,
  ],
  [
    'decision-expiry-not-deny',
    [agent(goodAgent({ policies: { toolCalls: { hook: { connection: 'gate' }, default: 'allow', onError: 'deny', onTimeout: 'deny' } } }))],
    ['policies'],
    /onExpire is not set/,
  ],
  [
    'decision-expiry-not-deny',
    [agent(goodAgent({ policies: { toolCalls: { byTool: { search: 'allow' } }, decisions: {} } }))],
    ['policies'],
    /onExpire is not set/,
  ],
  [
    'sandbox-unrestricted-egress',
    [agent(goodAgent({ sandbox: { tools: { preset: 'read-only' } } }))],
    ['sandbox'],
    /egress\.mode is not set: the server's default may let the sandbox reach any host/,
  ],
  [
    'sandbox-tools-too-wide',
    [agent(goodAgent({ sandbox: { network: { egress: { mode: 'allowlist' } } } }))],
    ['sandbox'],
    /preset is not set and sandbox\.tools\.deny is empty/,
  ],
  ['limits-missing', [agent(goodAgent({ limits: {} }))], ['limits'], /no limits\.maxTurns or limits\.maxInputTokensPerSession/],
  ['key-spend-caps-missing', [key({ scopes: ['read'] })], ['spend'], /has no spend caps/],
  ['control-key-without-expiry', [key({ scopes: ['control'], spend: { dailyUsd: 1 } })], ['scopes'], /no expiresAt/],
  [
    'identity-not-required-with-grants',
    [grant, agent(goodAgent({ tools: [{ type: 'connection', name: 'github' }] }))],
    ['identity'],
    /identity\.required is not true/,
  ],
  [
    'subagent-depth',
    [...chain(2).slice(1), agent(goodAgent({ subagents: [{ kind: 'agent', name: 'next', agent: 'a1' }] }))],
    ['subagentPolicy'],
    /selfDelegation is not set \(the server's default may allow it\) and subagentPolicy\.maxDepth is not set: the tree may be unbounded/,
  ],
  [
    'fallback-provider-without-secret',
    [agent(goodAgent({ model: { provider: 'openai', model: 'gpt-4o', fallback: { models: [{ provider: 'mistral', model: 'large' }] } } }))],
    ['model', 'fallback', 'models', 0, 'provider'],
    /not declared/,
  ],
];

describe('a rule whose input is left to the server judges it unknown, as its worst value', () => {
  it("the table covers every built-in rule but the environment's spend caps (a missing cap is its case)", () => {
    // An unset identity.scopesAllowed restricts nothing: grant-scope-not-allowed has nothing to judge.
    const judgedAlone = new Set(['environment-spend-caps-missing', 'grant-scope-not-allowed']);
    expect(new Set(LEFT_TO_THE_SERVER.map(([rule]) => rule))).toEqual(new Set(BUILTIN_RULE_IDS.filter((id) => !judgedAlone.has(id))));
  });
  it.each(LEFT_TO_THE_SERVER)('%s', (rule, resources, path, message) => {
    const found = evaluatePolicy(environmentWith(resources, { kind: 'production' })).filter((finding) => finding.rule === rule);
    expect(found[0], JSON.stringify(found)).toMatchObject({ severity: 'error', path });
    expect(found[0]?.message).toMatch(message);
  });
});

describe('rules judge only what can happen', () => {
  const only = (rule: string, spec: Record<string, unknown>) =>
    evaluatePolicy(environmentWith([desired('agent', 'a', spec as DesiredResource['spec'])], { kind: 'production' })).filter(
      (finding) => finding.rule === rule,
    );

  it.each([
    [
      'hook-fails-open: no hook, nothing fails open',
      'hook-fails-open',
      goodAgent({ policies: { toolCalls: { default: 'deny', onError: 'allow', onTimeout: 'allow' } } }),
    ],
    [
      'decision-expiry-not-deny: no call ever waits for a decision',
      'decision-expiry-not-deny',
      goodAgent({ policies: { toolCalls: { default: 'deny' }, decisions: { onExpire: 'allow' } } }),
    ],
    [
      'subagent-depth: bounds of an agent that delegates to no one',
      'subagent-depth',
      goodAgent({ subagentPolicy: { maxDepth: 9, maxConcurrent: 9, selfDelegation: false } }),
    ],
  ])('%s', (_, rule, spec) => {
    expect(only(rule, spec)).toEqual([]);
  });

  it('an ask decision can wait: decisions.onExpire allow is flagged without a hook', () => {
    expect(only('decision-expiry-not-deny', goodAgent({ policies: { toolCalls: { default: 'ask' }, decisions: { onExpire: 'allow' } } }))).toHaveLength(1);
  });

  it('self-delegation with a maxDepth above the threshold is flagged', () => {
    expect(only('subagent-depth', goodAgent({ subagentPolicy: { maxDepth: 9, selfDelegation: true } })).map((finding) => finding.path)).toEqual([
      ['subagentPolicy', 'maxDepth'],
    ]);
  });
});

describe('identity rules follow the identity reach', () => {
  const githubAgent = (name: string, extra: Record<string, unknown>) =>
    desired('agent', name, goodAgent({ tools: [{ type: 'connection', name: 'github' }], ...extra } as DesiredResource['spec']));
  const messages = (rule: string, resources: DesiredResource[]) =>
    evaluatePolicy(environmentWith(resources))
      .filter((finding) => finding.rule === rule)
      .map((finding) => `${finding.address}: ${finding.message}`);

  it('an agent reaching the connection through a subagent that admits anonymous callers: one finding per agent, with its chain', () => {
    const front = desired('agent', 'front', goodAgent({ subagents: [{ kind: 'agent', name: 'next', agent: 'support' }], ...bounded }));
    expect(messages('identity-not-required-with-grants', [grant, front, githubAgent('support', {})])).toEqual([
      'agent/front: identity.required is not true, but connection github (through support) holds per-identity grants',
      'agent/support: identity.required is not true, but connection github holds per-identity grants',
    ]);
  });

  it('an identity required by the subagent keeps the anonymous caller out of its chain', () => {
    const front = desired('agent', 'front', goodAgent({ subagents: [{ kind: 'agent', name: 'next', agent: 'support' }], ...bounded }));
    expect(messages('identity-not-required-with-grants', [grant, front, githubAgent('support', { identity: { required: true } })])).toEqual([]);
  });

  it('a scope outside scopesAllowed names the agents; a grant on another connection is not judged', () => {
    const other = desired('grant', 'crm:team:ops', { connection: 'crm', identity: { scope: 'team', id: 'ops' } });
    expect(messages('grant-scope-not-allowed', [grant, other, githubAgent('support', { identity: { required: true, scopesAllowed: ['team'] } })])).toEqual([
      'grant/github:user:alice: scope user is not in identity.scopesAllowed of agent support, which reaches connection github: whether the server refuses this grant there is not shown',
    ]);
  });

  it('the severity is configurable per environment like the others', () => {
    const input = environmentWith([grant, githubAgent('support', { identity: { required: true, scopesAllowed: ['team'] } })]);
    const settings = { severities: { 'grant-scope-not-allowed': { staging: 'error', '*': 'off' } as const }, custom: [], suppressions: {} };
    expect(
      evaluatePolicy(input, settings)
        .filter((finding) => finding.rule === 'grant-scope-not-allowed')
        .map((finding) => finding.severity),
    ).toEqual(['error']);
    expect(evaluatePolicy({ ...input, environment: 'dev' }, settings).filter((finding) => finding.rule === 'grant-scope-not-allowed')).toEqual([]);
  });
});
