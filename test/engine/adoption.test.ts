// Adoption in the plan engine: with a base (`--base`), a declared resource that exists live but
// that the base does not declare plans as `adopt`; everything else plans as it would without one.
import { describe, expect, it } from 'vitest';
import { type AdoptionBase, computePlan } from '../../src/engine/plan.js';
import { changeCount, type ActualResource, type DesiredResource, type Plan, type ResourceAddress } from '../../src/model/resources.js';
import { actual, actualState, agentSpec, desired, desiredState } from './builders.js';

const base = (...declared: string[]): AdoptionBase => ({ label: 'main (abc)', declared: new Set(declared as ResourceAddress[]) });

function plan(want: DesiredResource[], have: ActualResource[], adoption?: AdoptionBase): Plan {
  return computePlan(desiredState(want), actualState(have), { prune: false, ...(adoption ? { adoption } : {}) });
}

const actions = (result: Plan) => Object.fromEntries(result.changes.map((change) => [change.address, change.action]));

describe('computePlan with a base', () => {
  const cases: Array<{ name: string; want: DesiredResource[]; have: ActualResource[]; adoption?: AdoptionBase; expected: Record<string, string> }> = [
    {
      name: 'live, the same, not in the base: adopt',
      want: [desired('provider', 'openai', { type: 'openai' })],
      have: [actual('provider', 'openai', { type: 'openai' })],
      adoption: base(),
      expected: { 'provider/openai': 'adopt' },
    },
    {
      name: 'live, different, not in the base: adopt',
      want: [desired('provider', 'openai', { type: 'openai' })],
      have: [actual('provider', 'openai', { type: 'azure' })],
      adoption: base(),
      expected: { 'provider/openai': 'adopt' },
    },
    {
      name: 'live, different, in the base: update',
      want: [desired('provider', 'openai', { type: 'openai' })],
      have: [actual('provider', 'openai', { type: 'azure' })],
      adoption: base('provider/openai'),
      expected: { 'provider/openai': 'update' },
    },
    {
      name: 'live, the same, in the base: no-op',
      want: [desired('provider', 'openai', { type: 'openai' })],
      have: [actual('provider', 'openai', { type: 'openai' })],
      adoption: base('provider/openai'),
      expected: { 'provider/openai': 'no-op' },
    },
    {
      name: 'not live, not in the base: create',
      want: [desired('agent', 'a', agentSpec())],
      have: [],
      adoption: base(),
      expected: { 'agent/a': 'create' },
    },
    {
      name: 'a replace stays a replace',
      want: [desired('apiKey', 'ci', { scopes: ['read'] })],
      have: [actual('apiKey', 'ci', { scopes: ['control'] })],
      adoption: base(),
      expected: { 'apiKey/ci': 'replace' },
    },
    {
      name: 'live but undeclared: unmanaged, whatever the base',
      want: [],
      have: [actual('agent', 'old', agentSpec())],
      adoption: base(),
      expected: { 'agent/old': 'unmanaged' },
    },
    {
      name: 'the environment and the organization are never adopted',
      want: [desired('environment', 'dev', { name: 'dev' }), desired('organization', 'current', { name: 'acme' })],
      have: [actual('environment', 'dev', { name: 'old' }), actual('organization', 'current', { name: 'acme' })],
      adoption: base(),
      expected: { 'environment/dev': 'update', 'organization/current': 'no-op' },
    },
    {
      name: 'no base: no adoption',
      want: [desired('provider', 'openai', { type: 'openai' })],
      have: [actual('provider', 'openai', { type: 'azure' })],
      expected: { 'provider/openai': 'update' },
    },
  ];
  it.each(cases)('$name', ({ want, have, adoption, expected }) => {
    expect(actions(plan(want, have, adoption))).toEqual(expected);
  });

  it('keeps the fields of the update, counts the adoption as a change, and says why', () => {
    const result = plan([desired('provider', 'openai', { type: 'openai' })], [actual('provider', 'openai', { type: 'azure' })], base());
    const [change] = result.changes;
    expect(change?.fields).toEqual([{ path: 'type', before: 'azure', after: 'openai' }]);
    expect(change?.reason).toBe('exists live but is not declared in main (abc): this change takes it over');
    expect(result.summary).toEqual({ add: 0, change: 0, adopt: 1, replace: 0, destroy: 0, unmanaged: 0 });
    expect(changeCount(result)).toBe(1);
    expect(result.order).toEqual(['provider/openai']);
  });

  it('an adoption that changes nothing is a change too (the reviewer must see the takeover)', () => {
    const result = plan([desired('provider', 'openai', { type: 'openai' })], [actual('provider', 'openai', { type: 'openai' })], base());
    expect(result.changes[0]?.fields).toEqual([]);
    expect(changeCount(result)).toBe(1);
  });

  it('sends the write-only values of what it adopts: the live copy cannot be compared', () => {
    const secret = { secret: { source: '${env:OPENAI_KEY}', value: 'SENTINEL' } };
    const result = plan([desired('provider', 'openai', { type: 'openai' }, { writeOnly: secret })], [actual('provider', 'openai', { type: 'openai' })], base());
    expect(result.changes[0]).toMatchObject({ action: 'adopt', fields: [{ path: 'secret', writeOnly: true }] });
    // Once declared in the base, the same resource is a no-op again: write-only values are not compared.
    const declared = plan(
      [desired('provider', 'openai', { type: 'openai' }, { writeOnly: secret })],
      [actual('provider', 'openai', { type: 'openai' })],
      base('provider/openai'),
    );
    expect(declared.changes[0]).toMatchObject({ action: 'no-op', fields: [] });
  });

  it('a replace of a live resource the base does not declare says it adopts', () => {
    const result = plan([desired('apiKey', 'ci', { scopes: ['read'] })], [actual('apiKey', 'ci', { scopes: ['control'] })], base());
    expect(result.changes[0]?.reason).toMatch(/^exists live but is not declared in main \(abc\): this change takes it over; /);
  });
});
