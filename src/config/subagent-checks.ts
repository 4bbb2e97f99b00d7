// Subagent graph checks for one environment: cycles (a → b → a) and chains deeper than an agent's
// subagentPolicy.maxDepth.
import type { SourceLocation } from '../errors.js';
import type { DesiredResource, JsonObject, Reference } from '../model/resources.js';
import type { PathSegment, ProblemList } from './problems.js';

interface LocatedReference extends Reference {
  segments: () => PathSegment[];
  locate: () => SourceLocation;
}

interface Edge {
  to: string;
  reference: LocatedReference;
}

export function checkSubagents(resources: DesiredResource[], located: Map<DesiredResource, LocatedReference[]>, problems: ProblemList): void {
  const agents = new Map<string, DesiredResource>();
  const edges = new Map<string, Edge[]>();
  for (const resource of resources) {
    if (resource.kind !== 'agent') continue;
    agents.set(resource.name, resource);
    const selfDelegation = (resource.spec.subagentPolicy as JsonObject | undefined)?.selfDelegation === true;
    const out = (located.get(resource) ?? [])
      .filter((reference) => reference.kind === 'agent')
      .filter((reference) => !(reference.name === resource.name && selfDelegation))
      .map((reference) => ({ to: reference.name, reference }));
    edges.set(resource.name, out);
  }
  const inCycle = reportCycles(agents, edges, problems);
  reportDepth(agents, edges, inCycle, problems);
}

function reportCycles(agents: Map<string, DesiredResource>, edges: Map<string, Edge[]>, problems: ProblemList): Set<string> {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: Array<{ name: string; via?: Edge }> = [];
  const inCycle = new Set<string>();
  const reported = new Set<string>();
  const visit = (name: string): void => {
    state.set(name, 'visiting');
    stack.push({ name });
    for (const edge of edges.get(name) ?? []) {
      if (!agents.has(edge.to)) continue;
      const seen = state.get(edge.to);
      if (seen === 'visiting') {
        const start = stack.findIndex((frame) => frame.name === edge.to);
        const cycle = stack.slice(start).map((frame) => frame.name);
        cycle.forEach((member) => inCycle.add(member));
        const key = [...cycle].sort().join('\u0000');
        if (!reported.has(key)) {
          reported.add(key);
          problems.error(`subagent cycle: ${[...cycle, edge.to].join(' → ')}`, edge.reference.locate(), edge.reference.segments());
        }
      } else if (seen === undefined) {
        (stack[stack.length - 1] as { via?: Edge }).via = edge;
        visit(edge.to);
      }
    }
    stack.pop();
    state.set(name, 'done');
  };
  for (const name of [...agents.keys()].sort()) if (!state.has(name)) visit(name);
  return inCycle;
}

function reportDepth(agents: Map<string, DesiredResource>, edges: Map<string, Edge[]>, inCycle: Set<string>, problems: ProblemList): void {
  // Longest chain below each agent, memoised; agents on a cycle are left to the cycle message.
  const longest = new Map<string, string[]>();
  const chainFrom = (name: string): string[] => {
    const known = longest.get(name);
    if (known) return known;
    longest.set(name, [name]); // guard against cycles not reachable from the cycle walk
    let best: string[] = [name];
    for (const edge of edges.get(name) ?? []) {
      if (!agents.has(edge.to) || inCycle.has(edge.to) || edge.to === name) continue;
      const below = chainFrom(edge.to);
      if (below.length + 1 > best.length) best = [name, ...below];
    }
    longest.set(name, best);
    return best;
  };
  for (const [name, agent] of agents) {
    if (inCycle.has(name)) continue;
    const policy = agent.spec.subagentPolicy as JsonObject | undefined;
    const maxDepth = policy?.maxDepth;
    if (typeof maxDepth !== 'number') continue;
    const chain = chainFrom(name);
    const depth = chain.length - 1;
    if (depth > maxDepth) {
      const first = (edges.get(name) ?? []).find((edge) => edge.to === chain[1]);
      problems.error(
        `subagent chain ${chain.join(' → ')} is ${depth} level${depth === 1 ? '' : 's'} deep, beyond subagentPolicy.maxDepth ${maxDepth} of "${name}"`,
        first?.reference.locate() ?? agent.location,
        first?.reference.segments(),
      );
    }
  }
}
