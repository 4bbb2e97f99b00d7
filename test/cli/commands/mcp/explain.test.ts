// The MCP tools' pure parts: explaining a rule or a field (explain.ts), and which environment kinds
// the apply tool refuses (plans.ts).
import { describe, expect, it } from 'vitest';
import { explain } from '../../../../src/cli/commands/mcp/explain.js';
import { isProductionKind } from '../../../../src/cli/commands/mcp/plans.js';
import { BUILTIN_RULES, PLAN_RULES } from '../../../../src/engine/policy/index.js';

describe('explain', () => {
  it.each(BUILTIN_RULES.map((rule) => [rule.id, rule.rationale]))('the rule %s: its rationale, docs and fixes', (id, rationale) => {
    expect(explain(id, undefined)).toMatchObject({
      rule: id,
      rationale,
      docs: 'docs/policy.md#built-in-rules',
      fix: expect.arrayContaining([expect.stringContaining(`policy.rules.${id}`)]),
    });
  });

  it.each(PLAN_RULES.map((rule) => [rule.id, rule.rationale]))('the plan rule %s: its rationale and docs', (id, rationale) => {
    expect(explain(id, undefined)).toMatchObject({
      rule: id,
      rationale,
      docs: 'docs/policy.md#rules-over-the-plan',
      fix: expect.arrayContaining([expect.stringContaining('change the plan'), expect.stringContaining(`policy.rules.${id}`)]),
    });
  });

  it.each([
    ['limits.maxTurns', undefined, { kind: 'agent', field: 'limits.maxTurns' }],
    ['agent.model.model', undefined, { kind: 'agent', field: 'model.model' }],
    ['tools[0].name', undefined, { kind: 'agent', field: 'tools[0].name' }],
    ['type', 'provider', { kind: 'provider', field: 'type' }],
    ['apiKey.scopes', undefined, { kind: 'apiKey', field: 'scopes' }],
  ] as const)('the field %s (kind %s): its description from the schema', (topic, kind, expected) => {
    const answer = explain(topic, kind);
    expect(answer).toMatchObject(expected);
    expect(answer.description).toEqual(expect.any(String));
  });

  it.each(['no.such.field', 'agent', 'limits.maxTurns.deeper'])('refuses %s, naming what it can explain', (topic) => {
    expect(() => explain(topic, undefined)).toThrow(/neither a built-in policy rule nor a field/);
  });
});

describe('isProductionKind', () => {
  it.each([
    ['production', true],
    ['Production', true],
    ['prod', true],
    ['prd', true],
    [' production ', true],
    ['staging', false],
    ['dev', false],
    [undefined, false],
    [42, false],
  ])('%s: %s', (kind, refused) => {
    expect(isProductionKind(kind)).toBe(refused);
  });
});
