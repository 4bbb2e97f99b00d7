// The dependency graph as Mermaid (`flowchart LR`) or Graphviz DOT. An edge points from a resource
// to what it depends on (agent → subagent, provider, connection, secret). Node ids are generated
// (`n0`, `n1`, ...) so no address can break the syntax; addresses appear only in escaped labels.
import type { ChangeAction, Plan, ResourceAddress } from '../model/resources.js';
import { visible } from './visible.js';

export interface GraphNode {
  address: ResourceAddress;
  dependsOn: ResourceAddress[];
  action?: ChangeAction;
}

export interface GraphOptions {
  /** Only resources that change (and edges between them). */
  onlyChanges?: boolean;
}

export function graphNodesOf(plan: Plan, options: GraphOptions = {}): GraphNode[] {
  return plan.changes
    .filter((change) => !options.onlyChanges || (change.action !== 'no-op' && change.action !== 'unmanaged'))
    .map((change) => ({ address: change.address, dependsOn: change.dependsOn, action: change.action }));
}

function idsOf(nodes: GraphNode[]): Map<ResourceAddress, string> {
  return new Map(nodes.map((node, index) => [node.address, `n${index}`]));
}

function edgesOf(nodes: GraphNode[], ids: Map<ResourceAddress, string>): Array<[string, string]> {
  const edges: Array<[string, string]> = [];
  for (const node of nodes) {
    for (const dep of node.dependsOn) {
      const to = ids.get(dep);
      if (to) edges.push([ids.get(node.address)!, to]);
    }
  }
  return edges;
}

/** Mermaid labels: quotes and markup characters as entity codes. */
function mermaidLabel(text: string): string {
  return visible(text).replace(/[#"<>&`]/g, (char) => `#${char.charCodeAt(0)};`);
}

const MERMAID_CLASS: Partial<Record<ChangeAction, string>> = {
  create: 'create',
  update: 'update',
  adopt: 'update',
  replace: 'replace',
  delete: 'delete',
};

export function renderMermaid(nodes: GraphNode[]): string {
  const ids = idsOf(nodes);
  const lines = ['flowchart LR'];
  for (const node of nodes) {
    const symbol =
      node.action === 'create'
        ? '+ '
        : node.action === 'update'
          ? '~ '
          : node.action === 'adopt'
            ? '~> '
            : node.action === 'replace'
              ? '-/+ '
              : node.action === 'delete'
                ? '- '
                : '';
    const cls = node.action ? MERMAID_CLASS[node.action] : undefined;
    lines.push(`  ${ids.get(node.address)}["${mermaidLabel(symbol + node.address)}"]${cls ? `:::${cls}` : ''}`);
  }
  for (const [from, to] of edgesOf(nodes, ids)) lines.push(`  ${from} --> ${to}`);
  const used = new Set(nodes.map((node) => (node.action ? MERMAID_CLASS[node.action] : undefined)).filter(Boolean));
  const styles: Record<string, string> = {
    create: 'fill:#e6ffed,stroke:#2da44e',
    update: 'fill:#fff8c5,stroke:#bf8700',
    replace: 'fill:#ffebe9,stroke:#bf8700',
    delete: 'fill:#ffebe9,stroke:#cf222e',
  };
  for (const cls of ['create', 'update', 'replace', 'delete']) if (used.has(cls)) lines.push(`  classDef ${cls} ${styles[cls]}`);
  return lines.join('\n');
}

function dotString(text: string): string {
  return `"${visible(text).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const DOT_COLOUR: Partial<Record<ChangeAction, string>> = {
  create: 'green',
  update: 'goldenrod',
  adopt: 'goldenrod',
  replace: 'orange',
  delete: 'red',
};

export function renderDot(nodes: GraphNode[]): string {
  const ids = idsOf(nodes);
  const lines = ['digraph agentform {', '  rankdir=LR;', '  node [shape=box];'];
  for (const node of nodes) {
    const colour = node.action ? DOT_COLOUR[node.action] : undefined;
    lines.push(`  ${ids.get(node.address)} [label=${dotString(node.address)}${colour ? `, color=${colour}` : ''}];`);
  }
  for (const [from, to] of edgesOf(nodes, ids)) lines.push(`  ${from} -> ${to};`);
  lines.push('}');
  return lines.join('\n');
}

export type GraphFormat = 'mermaid' | 'dot' | 'json';

/** graph's output formats, looked up by name. */
export const GRAPH_FORMATS: Readonly<Record<GraphFormat, (nodes: GraphNode[]) => string>> = {
  mermaid: renderMermaid,
  dot: renderDot,
  json: (nodes) => JSON.stringify(nodes, null, 2),
};
