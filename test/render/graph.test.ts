import { describe, expect, it } from 'vitest';
import { renderDot, renderMermaid, type GraphNode } from '../../src/render/graph.js';

const nodes: GraphNode[] = [
  { address: 'provider/openai', dependsOn: [], action: 'no-op' },
  { address: 'agent/child', dependsOn: ['provider/openai'], action: 'create' },
  { address: 'agent/pa"rent<x>', dependsOn: ['agent/child', 'provider/openai', 'secret/not-in-graph'], action: 'update' },
];

describe('graph renderers', () => {
  it('Mermaid: generated ids, escaped labels, edges to dependencies', () => {
    expect(renderMermaid(nodes)).toBe(
      [
        'flowchart LR',
        '  n0["provider/openai"]',
        '  n1["+ agent/child"]:::create',
        '  n2["~ agent/pa#34;rent#60;x#62;"]:::update',
        '  n1 --> n0',
        '  n2 --> n1',
        '  n2 --> n0',
        '  classDef create fill:#e6ffed,stroke:#2da44e',
        '  classDef update fill:#fff8c5,stroke:#bf8700',
      ].join('\n'),
    );
  });

  it('DOT: quoted labels', () => {
    expect(renderDot(nodes)).toBe(
      [
        'digraph agentform {',
        '  rankdir=LR;',
        '  node [shape=box];',
        '  n0 [label="provider/openai"];',
        '  n1 [label="agent/child", color=green];',
        '  n2 [label="agent/pa\\"rent<x>", color=goldenrod];',
        '  n1 -> n0;',
        '  n2 -> n1;',
        '  n2 -> n0;',
        '}',
      ].join('\n'),
    );
  });
});
