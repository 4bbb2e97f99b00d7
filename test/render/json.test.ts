import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { SafetyReview } from '../../src/model/safety.js';
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

  it('carries an identity whose admission changed as `changed`, before and after, per the schema', () => {
    const reach = { identity: 'user:alice', connection: 'github', via: [], grant: 'github:user:alice', tools: ['github.search'] };
    const noted = { ...reach, note: "scope user is not in support's identity.scopesAllowed [team]: assumed admitted (not shown)" };
    const safety: SafetyReview = {
      environment: 'staging',
      findings: [],
      notes: [],
      counts: { errors: 0, warnings: 0, suppressed: 0 },
      identityChanges: [{ agent: 'support', changes: [{ change: 'changed', before: reach, reach: noted }], reach: [noted] }],
    };
    const document = JSON.parse(renderPlanJson(samplePlan(), { safety }));
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    expect(document.safety.identityChanges[0].changes).toEqual([{ change: 'changed', before: reach, reach: noted }]);
    // `before` goes with `changed` only, and `changed` needs it.
    delete document.safety.identityChanges[0].changes[0].before;
    expect(validate(document)).toBe(false);
    document.safety.identityChanges[0].changes[0] = { change: 'added', before: reach, reach: noted };
    expect(validate(document)).toBe(false);
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

  describe('changesOnly (plan --json --changes-only)', () => {
    const full = JSON.parse(renderPlanJson(samplePlan(), { target: 'https://api.example.test' }));
    const compact = JSON.parse(renderPlanJson(samplePlan(), { target: 'https://api.example.test', changesOnly: true }));

    it('leaves out the no-op resources and keeps every other entry', () => {
      const actionsOf = (document: { changes: Array<{ action: string }> }) => document.changes.map((change) => change.action);
      expect(actionsOf(full)).toContain('no-op');
      expect(actionsOf(compact)).not.toContain('no-op');
      expect(compact.changes).toEqual(full.changes.filter((change: { action: string }) => change.action !== 'no-op'));
    });

    it('keeps the schema and every other key', () => {
      expect(validate(compact), JSON.stringify(validate.errors)).toBe(true);
      expect(Object.keys(compact)).toEqual(Object.keys(full));
      expect(compact.summary).toEqual(full.summary);
      expect(compact.order).toEqual(full.order);
    });

    it('orders the keys of each change and field the same way, whatever order they were built in', () => {
      const plan = samplePlan();
      const reversed = {
        ...plan,
        changes: plan.changes.map((change) => ({
          ...Object.fromEntries(Object.entries(change).reverse()),
          fields: change.fields.map((field) => Object.fromEntries(Object.entries(field).reverse())),
        })) as typeof plan.changes,
      };
      expect(renderPlanJson(reversed, { changesOnly: true })).toBe(renderPlanJson(plan, { changesOnly: true }));
      const update = compact.changes.find((change: { action: string }) => change.action === 'update');
      expect(Object.keys(update)).toEqual(['address', 'kind', 'name', 'action', 'fields', 'dependsOn', 'id', 'remoteFingerprint']);
    });
  });
});
