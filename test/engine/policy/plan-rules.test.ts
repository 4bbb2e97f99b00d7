// Rules over the plan: each built-in plan rule refuses (error) in production and warns elsewhere
// when configured so, the defaults a pruning CI keeps passing with, and custom rules over the
// plan's JSON document (each change, or the whole plan).
import { describe, expect, it } from 'vitest';
import {
  agentModels,
  blockingFindings,
  compileCustomRules,
  evaluatePolicy,
  NO_SETTINGS,
  type PlanCustomRule,
  type PlanPolicyInput,
  type PolicyInput,
  type PolicySettings,
} from '../../../src/engine/policy/index.js';
import type { ChangeAction, ResourceChange, ResourceKind } from '../../../src/model/resources.js';
import { desired } from '../builders.js';
import { environmentWith, goodAgent } from './builders.js';

function change(kind: ResourceKind, name: string, action: ChangeAction, fields: ResourceChange['fields'] = []): ResourceChange {
  return { address: `${kind}/${name}`, kind, name, action, fields, dependsOn: [] };
}

const MODEL_FIELD = [{ path: 'model.model', before: 'gpt-4o', after: 'gpt-5' }];

/** The environment `name` (of kind production when so named) with one agent on `model`, and a plan. */
function planned(name: 'production' | 'staging', changes: ResourceChange[], extra: Partial<PlanPolicyInput> = {}, model = 'gpt-5'): PolicyInput {
  const base = environmentWith(
    [desired('agent', 'support', goodAgent({ model: { provider: 'openai', model } }))],
    name === 'production' ? { kind: 'production' } : {},
  );
  const document = { formatVersion: 1, environment: name, summary: {}, order: [], changes: changes as unknown as never[], warnings: [] };
  return { ...base, environment: name, plan: { changes, document, ...extra } };
}

const STRICT = { production: 'error', '*': 'warning' } as const;
const withSeverity = (rule: string, extra: Partial<PolicySettings> = {}): PolicySettings => ({ ...NO_SETTINGS, severities: { [rule]: STRICT }, ...extra });

const cases: Array<{ rule: string; changes: ResourceChange[]; extra?: Partial<PlanPolicyInput>; address: string; message: string }> = [
  { rule: 'plan-destroy', changes: [change('agent', 'old', 'delete')], address: 'agent/old', message: 'the plan destroys it in' },
  { rule: 'plan-replace', changes: [change('apiKey', 'ci', 'replace')], address: 'apiKey/ci', message: 'the plan replaces it in' },
  {
    rule: 'plan-changed-agents',
    changes: [change('agent', 'a', 'update'), change('agent', 'b', 'create'), change('agent', 'c', 'delete'), change('agent', 'd', 'no-op')],
    extra: { maxChangedAgents: 2 },
    address: 'environment/',
    message: 'the plan changes 3 agents in',
  },
  {
    rule: 'plan-model-not-in-earlier-environment',
    changes: [change('agent', 'support', 'update', MODEL_FIELD)],
    extra: { earlier: { environment: 'staging', models: new Map([['support', { provider: 'openai', model: 'gpt-4o' }]]) } },
    address: 'agent/support',
    message: "the model changes to openai/gpt-5, not yet in staging: staging's configuration has openai/gpt-4o",
  },
];

describe('built-in plan rules, configured {production: error, "*": warning}', () => {
  it.each(cases.flatMap((item) => (['production', 'staging'] as const).map((environment) => ({ ...item, environment }))))(
    '$rule in $environment',
    ({ rule, changes, extra, address, message, environment }) => {
      const findings = evaluatePolicy(planned(environment, changes, extra), withSeverity(rule)).filter((finding) => finding.rule === rule);
      expect(findings).toHaveLength(1);
      const [finding] = findings;
      expect(finding?.address.startsWith(address)).toBe(true);
      expect(finding?.message).toContain(message);
      expect(finding?.severity).toBe(environment === 'production' ? 'error' : 'warning');
      expect(blockingFindings(findings)).toHaveLength(environment === 'production' ? 1 : 0);
    },
  );

  it('a suppression on the resource hides the finding from the verdict', () => {
    const findings = evaluatePolicy(
      planned('production', [change('agent', 'old', 'delete')]),
      withSeverity('plan-destroy', { suppressions: { 'agent/old': [{ rule: 'plan-destroy', reason: 'retired on purpose' }] } }),
    );
    expect(findings.find((finding) => finding.rule === 'plan-destroy')?.suppressed).toEqual({ reason: 'retired on purpose' });
    expect(blockingFindings(findings)).toEqual([]);
  });
});

describe('defaults', () => {
  const rules = (input: PolicyInput) => evaluatePolicy(input).filter((finding) => finding.rule.startsWith('plan-'));

  it('a destroy or replace is a warning in production and not checked elsewhere (a pruning CI keeps passing)', () => {
    const changes = [change('agent', 'old', 'delete'), change('apiKey', 'ci', 'replace')];
    expect(rules(planned('production', changes)).map((finding) => [finding.rule, finding.severity])).toEqual([
      ['plan-destroy', 'warning'],
      ['plan-replace', 'warning'],
    ]);
    expect(rules(planned('staging', changes))).toEqual([]);
  });

  it('the agent count and the model rule run only when configured, then strict in production', () => {
    const changes = [change('agent', 'support', 'update', MODEL_FIELD), change('agent', 'b', 'create')];
    expect(rules(planned('production', changes))).toEqual([]);
    const configured = { maxChangedAgents: 1, earlier: { environment: 'staging', models: new Map() } };
    expect(rules(planned('production', changes, configured)).map((finding) => [finding.rule, finding.severity])).toEqual([
      ['plan-model-not-in-earlier-environment', 'error'],
      ['plan-changed-agents', 'error'],
    ]);
  });

  it('no plan (check, validate): the plan rules do not run', () => {
    const { plan: _plan, ...input } = planned('production', [change('agent', 'old', 'delete')]);
    expect(rules(input)).toEqual([]);
  });
});

describe('plan-model-not-in-earlier-environment', () => {
  const earlier = (model: string | undefined) => ({
    earlier: { environment: 'staging', models: new Map(model ? [['support', { provider: 'openai', model }]] : []) },
  });
  const judge = (changes: ResourceChange[], extra: Partial<PlanPolicyInput>) =>
    evaluatePolicy(planned('production', changes, extra)).filter((finding) => finding.rule === 'plan-model-not-in-earlier-environment');

  it.each([
    ['the earlier environment has the model already', [change('agent', 'support', 'update', MODEL_FIELD)], 'gpt-5', 0],
    ['another field changes, not the model', [change('agent', 'support', 'update', [{ path: 'system', before: 'a', after: 'b' }])], undefined, 0],
    ['a provider change counts', [change('agent', 'support', 'update', [{ path: 'model.provider', before: 'x', after: 'openai' }])], 'gpt-4o', 1],
    ['a new agent counts (a create writes its model)', [change('agent', 'support', 'create', [{ path: 'model', after: {} }])], undefined, 1],
    ['a delete does not', [change('agent', 'support', 'delete')], undefined, 0],
  ] as const)('%s', (_, changes, model, count) => {
    expect(judge([...changes], earlier(model))).toHaveLength(count);
  });

  it('compares the model and the provider type, not the provider resource name (overlays may rename it)', () => {
    const renamed = { provider: 'openai-eu', model: 'gpt-5' };
    const withProvider = (type: string): PolicyInput => {
      const input = planned('production', [change('agent', 'support', 'update', MODEL_FIELD)], {
        earlier: {
          environment: 'staging',
          models: agentModels([desired('provider', 'openai-eu', { type: 'openai' }), desired('agent', 'support', { model: renamed })]),
        },
      });
      return { ...input, resources: [...input.resources, desired('provider', 'openai', { type })] };
    };
    const findings = (input: PolicyInput) => evaluatePolicy(input).filter((finding) => finding.rule === 'plan-model-not-in-earlier-environment');
    expect(findings(withProvider('openai'))).toEqual([]);
    expect(findings(withProvider('anthropic'))).toHaveLength(1);
  });

  it('names the earlier environment when it does not declare the agent, and points at the model', () => {
    const [finding] = judge([change('agent', 'support', 'update', MODEL_FIELD)], earlier(undefined));
    expect(finding).toMatchObject({
      path: ['model'],
      message: "the model changes to openai/gpt-5, not yet in staging: staging's configuration does not declare agent support",
    });
  });

  it.each([
    [
      'an unknown model (it reads a variable this run does not set) is unconfirmed, not undeclared',
      { environment: 'staging', models: new Map([['support', { unknown: true as const }]]) },
      "staging's model of agent support is not known here (it reads an ${env:} variable this run does not set)",
    ],
    [
      'a configuration that cannot be read says why, whatever the models',
      { environment: 'staging', models: new Map([['support', { provider: 'openai', model: 'gpt-5' }]]), unreadable: 'a.yaml:3:4: broken' },
      "could not read staging's configuration: a.yaml:3:4: broken",
    ],
  ])('%s', (_, earlierEnvironment, why) => {
    const [finding] = judge([change('agent', 'support', 'update', MODEL_FIELD)], { earlier: earlierEnvironment });
    expect(finding?.message).toBe(`the model changes to openai/gpt-5, not yet in staging: ${why}`);
  });
});

describe('custom rules over the plan', () => {
  const compile = (rule: PlanCustomRule) => compileCustomRules([rule]).compiled.map((compiled) => ({ ...compiled, severity: STRICT }));
  const noPromptChange: PlanCustomRule = {
    id: 'no-system-prompt-change',
    message: 'a system prompt changes: get a second review',
    over: 'change',
    schema: { properties: { fields: { not: { contains: { properties: { path: { const: 'system' } }, required: ['path'] } } } } },
  };
  const noDestroys: PlanCustomRule = {
    id: 'no-destroy-at-all',
    message: 'this plan destroys',
    over: 'plan',
    schema: { properties: { changes: { not: { contains: { properties: { action: { const: 'delete' } }, required: ['action'] } } } } },
  };
  const prompt = change('agent', 'support', 'update', [{ path: 'system', before: 'a', after: 'b' }]);

  it.each([
    ['each change: the failing change, error in production', noPromptChange, 'production', [prompt, change('agent', 'b', 'update')], 'agent/support', 'error'],
    ['each change: a warning elsewhere', noPromptChange, 'staging', [prompt], 'agent/support', 'warning'],
    ['the whole plan: the environment, error in production', noDestroys, 'production', [change('agent', 'old', 'delete')], 'environment/', 'error'],
  ] as const)('%s', (_, rule, environment, changes, address, severity) => {
    const findings = evaluatePolicy(planned(environment, [...changes]), { ...NO_SETTINGS, planCustom: compile(rule) }).filter(
      (finding) => finding.rule === rule.id,
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity, custom: true });
    expect(findings[0]?.address.startsWith(address)).toBe(true);
    expect(findings[0]?.message).toContain(rule.message);
  });

  it('a plan that satisfies it has no finding; an unchanged resource is not judged', () => {
    const findings = evaluatePolicy(planned('production', [change('agent', 'support', 'no-op', [{ path: 'system', before: 'a', after: 'b' }])]), {
      ...NO_SETTINGS,
      planCustom: [...compile(noPromptChange), ...compile(noDestroys)],
    });
    expect(findings.filter((finding) => finding.custom)).toEqual([]);
  });
});
