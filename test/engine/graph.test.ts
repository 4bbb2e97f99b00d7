import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/engine/graph.js';
import type { Reference } from '../../src/model/resources.js';
import { desired } from './builders.js';

const ref = (kind: Reference['kind'], name: string): Reference => ({ kind, name, path: 'x' });

describe('buildGraph', () => {
  it('puts dependencies first, then kind order, then declaration order', () => {
    const { order, edges } = buildGraph([
      desired('apiKey', 'k'),
      desired('agent', 'parent', {}, { references: [ref('agent', 'child'), ref('provider', 'p')] }),
      desired('agent', 'child', {}, { references: [ref('provider', 'p'), ref('provider', 'p')] }),
      desired('provider', 'p', {}, { references: [ref('secret', 'elsewhere')] }),
      desired('secret', 's'),
      desired('organization', 'current'),
    ]);
    expect(order).toEqual(['organization/current', 'secret/s', 'provider/p', 'agent/child', 'agent/parent', 'apiKey/k']);
    expect(edges.get('agent/parent')).toEqual(['agent/child', 'provider/p']);
    expect(edges.get('agent/child')).toEqual(['provider/p']);
    expect(edges.get('provider/p')).toEqual([]);
  });

  it('ignores self references', () => {
    expect(buildGraph([desired('agent', 'a', {}, { references: [ref('agent', 'a')] })]).order).toEqual(['agent/a']);
  });

  it('reports a longer cycle, not the nodes merely waiting on it', () => {
    expect(() =>
      buildGraph([
        desired('agent', 'waiting', {}, { references: [ref('agent', 'x')] }),
        desired('agent', 'x', {}, { references: [ref('agent', 'y')] }),
        desired('agent', 'y', {}, { references: [ref('agent', 'z')] }),
        desired('agent', 'z', {}, { references: [ref('agent', 'x')] }),
      ]),
    ).toThrow('dependency cycle: agent/x → agent/y → agent/z → agent/x');
  });

  it('handles a chain of 20,000 without recursion limits', () => {
    const resources = Array.from({ length: 20_000 }, (_, i) => desired('agent', `a${i}`, {}, { references: i > 0 ? [ref('agent', `a${i - 1}`)] : [] }));
    resources.reverse();
    const { order } = buildGraph(resources);
    expect(order[0]).toBe('agent/a0');
    expect(order[19_999]).toBe('agent/a19999');
  });
});
