import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffSpec } from '../../src/engine/diff.js';
import { PlanError } from '../../src/engine/errors.js';
import { computePlan } from '../../src/engine/plan.js';
import { rulesFor } from '../../src/engine/rules.js';
import type { ActualResource, DesiredResource, JsonObject, ResourceKind } from '../../src/model/resources.js';
import { RESOURCE_KINDS } from '../../src/model/resources.js';
import { actual, actualState, desired, desiredState } from './builders.js';

const jsonObject = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 4 })) as fc.Arbitrary<JsonObject>;
const kind = fc.constantFrom<ResourceKind>(...RESOURCE_KINDS);
const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/);

describe('properties', () => {
  it('diffSpec never throws on arbitrary JSON and a spec never differs from itself', () => {
    fc.assert(
      fc.property(kind, jsonObject, jsonObject, (k, a, b) => {
        diffSpec(a, b, rulesFor(k));
        expect(diffSpec(a, a, rulesFor(k))).toEqual([]);
        expect(diffSpec(a, structuredClone(a), rulesFor(k))).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('computePlan never throws except the documented PlanErrors', () => {
    const resources = fc.uniqueArray(fc.record({ kind, name, spec: jsonObject }), { selector: (r) => `${r.kind}/${r.name}`, maxLength: 8 });
    fc.assert(
      fc.property(resources, resources, fc.boolean(), (want, have, prune) => {
        try {
          computePlan(desiredState(want.map((r) => desired(r.kind, r.name, r.spec))), actualState(have.map((r) => actual(r.kind, r.name, r.spec))), { prune });
        } catch (error) {
          expect(error).toBeInstanceOf(PlanError);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the plan of identical desired and actual is all no-op', () => {
    const resources = fc.uniqueArray(fc.record({ kind, name, spec: jsonObject }), { selector: (r) => `${r.kind}/${r.name}`, maxLength: 10 });
    fc.assert(
      fc.property(resources, (list) => {
        const want: DesiredResource[] = list.map((r) => desired(r.kind, r.name, r.spec));
        const have: ActualResource[] = list.map((r) => actual(r.kind, r.name, structuredClone(r.spec)));
        const plan = computePlan(desiredState(want), actualState(have), { prune: true });
        expect(plan.changes.every((change) => change.action === 'no-op')).toBe(true);
        expect(plan.summary).toEqual({ add: 0, change: 0, adopt: 0, replace: 0, destroy: 0, unmanaged: 0 });
      }),
      { numRuns: 300 },
    );
  });
});
