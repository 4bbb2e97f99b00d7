import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { renderPlanJson } from '../../src/render/json.js';
import { pruningPlan, samplePlan } from './fixtures.js';

const schema = JSON.parse(readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'));
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);

describe('renderPlanJson', () => {
  it.each([
    ['a plan with every action', samplePlan()],
    ['a pruning plan', pruningPlan()],
  ])('%s validates against schemas/plan.schema.json', (_, plan) => {
    const document = JSON.parse(renderPlanJson(plan, { target: 'https://api.example.test' }));
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    expect(document.formatVersion).toBe(1);
    expect(document.target).toBe('https://api.example.test');
  });

  it('the schema rejects a write-only field with a value, and unknown actions', () => {
    const document = JSON.parse(renderPlanJson(samplePlan()));
    document.changes[0].fields[1] = { path: 'secret', writeOnly: true, after: 'x' };
    expect(validate(document)).toBe(false);
    const other = JSON.parse(renderPlanJson(samplePlan()));
    other.changes[0].action = 'explode';
    expect(validate(other)).toBe(false);
  });

  it('carries kept remote values and fields left to the server', () => {
    const document = JSON.parse(renderPlanJson(samplePlan()));
    const byAddress = new Map(document.changes.map((change: { address: string }) => [change.address, change]));
    expect(byAddress.get('agent/triage')).toMatchObject({ action: 'no-op', kept: [{ path: 'policies.toolCalls.byTool', value: { shell: 'allow' } }] });
    expect(byAddress.get('agent/support')).toMatchObject({
      fields: expect.arrayContaining([{ path: 'model.reasoning', before: 'high', after: null, resetToDefault: true }]),
    });
  });

  it('never contains a write-only value', () => {
    expect(renderPlanJson(samplePlan())).not.toContain('SENTINEL');
  });
});
