// Severities per environment, suppressions, thresholds and custom JSON Schema rules.
import { describe, expect, it } from 'vitest';
import { compileCustomRules, evaluatePolicy, blockingFindings, type PolicySettings, NO_SETTINGS } from '../../../src/engine/policy/index.js';
import { desired } from '../builders.js';
import { environmentWith, goodAgent } from './builders.js';

const unbounded = desired('agent', 'support', goodAgent({ limits: { maxTurns: 5 } }));

function settings(extra: Partial<PolicySettings>): PolicySettings {
  return { ...NO_SETTINGS, ...extra };
}

describe('severity settings', () => {
  it.each([
    ['one severity everywhere', 'off', 'production', undefined],
    ['the environment by name wins', { staging: 'warning', '*': 'off' }, 'production', 'warning'],
    ['"*" for the environments not named', { production: 'off', '*': 'error' }, undefined, 'error'],
    ['an environment not named and no "*": the default for its kind', { prod: 'off' }, 'production', 'error'],
  ] as const)('%s', (_, setting, kind, expected) => {
    const findings = evaluatePolicy(environmentWith([unbounded], kind ? { kind } : {}), settings({ severities: { 'limits-missing': setting } }));
    expect(findings.find((finding) => finding.rule === 'limits-missing')?.severity).toBe(expected);
  });
});

describe('suppressions', () => {
  it('a suppressed finding is listed with its reason and does not block', () => {
    const findings = evaluatePolicy(
      environmentWith([unbounded], { kind: 'production' }),
      settings({ suppressions: { 'agent/support': [{ rule: 'limits-missing', reason: 'batch agent, bounded by its caller' }] } }),
    );
    const finding = findings.find((item) => item.rule === 'limits-missing');
    expect(finding).toMatchObject({ severity: 'error', suppressed: { reason: 'batch agent, bounded by its caller' } });
    expect(blockingFindings(findings)).toEqual([]);
  });

  it('a suppression of another rule or another resource does not hide it', () => {
    const findings = evaluatePolicy(
      environmentWith([unbounded], { kind: 'production' }),
      settings({ suppressions: { 'agent/support': [{ rule: 'hook-fails-open', reason: 'x' }], 'agent/other': [{ rule: 'limits-missing', reason: 'x' }] } }),
    );
    expect(blockingFindings(findings).map((finding) => finding.rule)).toEqual(['limits-missing']);
  });
});

describe('subagent thresholds', () => {
  it('a cycle without maxDepth is unbounded; with maxDepth it is not flagged for the cycle', () => {
    const a = (extra = {}) => desired('agent', 'a', goodAgent({ subagents: [{ kind: 'agent', name: 'b', agent: 'b' }], ...extra }));
    const b = desired('agent', 'b', goodAgent({ subagents: [{ kind: 'agent', name: 'a', agent: 'a' }], subagentPolicy: { maxDepth: 2 } }));
    const messages = (agentA: ReturnType<typeof a>) =>
      evaluatePolicy(environmentWith([agentA, b]))
        .filter((finding) => finding.rule === 'subagent-depth' && finding.address === 'agent/a')
        .map((finding) => finding.message);
    expect(messages(a())).toEqual([expect.stringContaining('cycle')]);
    expect(messages(a({ subagentPolicy: { maxDepth: 2 } }))).toEqual([]);
  });

  it('fan-out and maxConcurrent above the threshold, and a lower threshold from the settings', () => {
    const wide = desired(
      'agent',
      'hub',
      goodAgent({ subagents: ['a', 'b', 'c'].map((name) => ({ kind: 'agent', name, agent: name })), subagentPolicy: { maxDepth: 1, maxConcurrent: 9 } }),
    );
    const input = {
      ...environmentWith([wide, ...['a', 'b', 'c'].map((name) => desired('agent', name, goodAgent()))]),
      thresholds: { subagentDepth: 3, subagentFanOut: 2 },
    };
    const found = evaluatePolicy(input)
      .filter((finding) => finding.rule === 'subagent-depth')
      .map((finding) => finding.path.join('.'));
    expect(found.sort()).toEqual(['subagentPolicy.maxConcurrent', 'subagents']);
  });
});

describe('custom rules', () => {
  const rule = {
    id: 'agent-has-description',
    message: 'every agent says what it is for',
    kinds: ['agent' as const],
    schema: { required: ['description'], properties: { description: { type: 'string', minLength: 10 } } },
  };

  it('flags a resource of its kinds that does not satisfy the schema, at the failing field', () => {
    const { compiled, errors } = compileCustomRules([rule]);
    expect(errors).toEqual([]);
    const input = environmentWith([
      desired('agent', 'bare', goodAgent()),
      desired('agent', 'short', goodAgent({ description: 'hi' })),
      desired('agent', 'good', goodAgent({ description: 'Answers questions about orders.' })),
      desired('apiKey', 'ci', { scopes: ['read'], spend: { dailyUsd: 1 } }),
    ]);
    const findings = evaluatePolicy(
      input,
      settings({ custom: compiled.map((item) => ({ ...item, severity: { production: 'error', '*': 'warning' } })) }),
    ).filter((finding) => finding.custom);
    expect(findings.map((finding) => [finding.address, finding.severity, finding.path])).toEqual([
      ['agent/bare', 'warning', []],
      ['agent/short', 'warning', ['description']],
    ]);
    expect(findings[0]?.message).toContain('every agent says what it is for');
  });

  it('takes its severity from policy.rules when set there, and is off where its setting says so', () => {
    const { compiled } = compileCustomRules([rule]);
    const input = environmentWith([desired('agent', 'bare', goodAgent())]);
    const custom = compiled.map((item) => ({ ...item, severity: 'warning' as const }));
    expect(evaluatePolicy(input, settings({ custom, severities: { 'agent-has-description': 'error' } })).find((finding) => finding.custom)?.severity).toBe(
      'error',
    );
    expect(evaluatePolicy(input, settings({ custom, severities: { 'agent-has-description': 'off' } })).filter((finding) => finding.custom)).toEqual([]);
  });

  it('a schema that does not compile is an error naming the rule, not an exception', () => {
    const { compiled, errors } = compileCustomRules([{ ...rule, id: 'broken', schema: { type: 'nope' } }]);
    expect(compiled).toEqual([]);
    expect(errors).toEqual([{ index: 0, message: expect.stringContaining('custom rule broken: its schema does not compile') }]);
  });
});
