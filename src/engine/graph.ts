// The dependency graph of the desired resources, and the order creates/updates run in.
import type { DesiredResource, ResourceAddress } from '../model/resources.js';
import { RESOURCE_KINDS, addressOf } from '../model/resources.js';
import { PlanError } from './errors.js';

export interface ResourceGraph {
  /** Every address, dependencies first; ties broken by kind order, then declaration order. */
  order: ResourceAddress[];
  /** Address → the addresses it depends on (only addresses in the graph, no self-edges). */
  edges: Map<ResourceAddress, ResourceAddress[]>;
}

const KIND_RANK = new Map<string, number>(RESOURCE_KINDS.map((kind, index) => [kind, index]));

/**
 * Kahn's algorithm, O(V + E). Among the resources that are ready, the one of the earliest kind
 * goes first (organization → environment → secrets → providers → connections → grants → agents →
 * apiKeys), so agents come out in subagent order. A cycle is a PlanError that prints the cycle.
 */
export function buildGraph(resources: DesiredResource[]): ResourceGraph {
  const edges = new Map<ResourceAddress, ResourceAddress[]>();
  const kindOf = new Map<ResourceAddress, number>();
  for (const resource of resources) {
    const address = addressOf(resource.kind, resource.name);
    edges.set(address, []);
    kindOf.set(address, KIND_RANK.get(resource.kind) ?? 0);
  }
  const dependents = new Map<ResourceAddress, ResourceAddress[]>();
  const waitingOn = new Map<ResourceAddress, number>();
  for (const resource of resources) {
    const address = addressOf(resource.kind, resource.name);
    const seen = new Set<ResourceAddress>();
    const deps = edges.get(address)!;
    for (const reference of resource.references) {
      const target = addressOf(reference.kind, reference.name);
      // A reference to something not in the configuration (it may exist remotely) orders nothing.
      if (target === address || seen.has(target) || !edges.has(target)) continue;
      seen.add(target);
      deps.push(target);
      let list = dependents.get(target);
      if (!list) dependents.set(target, (list = []));
      list.push(address);
    }
    waitingOn.set(address, deps.length);
  }

  // One ready queue per kind; always take from the earliest non-empty kind.
  const ready: ResourceAddress[][] = RESOURCE_KINDS.map(() => []);
  const heads = RESOURCE_KINDS.map(() => 0);
  for (const [address, count] of waitingOn) if (count === 0) ready[kindOf.get(address)!]!.push(address);
  const order: ResourceAddress[] = [];
  for (;;) {
    let rank = 0;
    while (rank < ready.length && heads[rank]! >= ready[rank]!.length) rank++;
    if (rank === ready.length) break;
    const address = ready[rank]![heads[rank]!]!;
    heads[rank]! += 1;
    order.push(address);
    for (const dependent of dependents.get(address) ?? []) {
      const left = waitingOn.get(dependent)! - 1;
      waitingOn.set(dependent, left);
      if (left === 0) ready[kindOf.get(dependent)!]!.push(dependent);
    }
  }
  if (order.length < edges.size) {
    const cycle = findCycle(edges, waitingOn);
    throw new PlanError(
      `dependency cycle: ${cycle.join(' → ')}`,
      'break the cycle: a resource cannot (indirectly) depend on itself, e.g. two agents that are each other’s subagent',
    );
  }
  return { order, edges };
}

/** A cycle among the nodes Kahn's algorithm could not emit, as `a → b → a`. */
function findCycle(edges: Map<ResourceAddress, ResourceAddress[]>, waitingOn: Map<ResourceAddress, number>): ResourceAddress[] {
  const stuck = [...waitingOn].filter(([, count]) => count > 0).map(([address]) => address);
  const state = new Map<ResourceAddress, 'open' | 'done'>();
  const stack: ResourceAddress[] = [];
  // Iterative DFS so that a long chain cannot overflow the call stack.
  for (const start of stuck) {
    if (state.has(start)) continue;
    const frames: Array<{ node: ResourceAddress; next: number }> = [{ node: start, next: 0 }];
    state.set(start, 'open');
    stack.push(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const deps = edges.get(frame.node) ?? [];
      if (frame.next >= deps.length) {
        state.set(frame.node, 'done');
        stack.pop();
        frames.pop();
        continue;
      }
      const dep = deps[frame.next++]!;
      const seen = state.get(dep);
      if (seen === 'open') return [...stack.slice(stack.indexOf(dep)), dep];
      if (seen === undefined) {
        state.set(dep, 'open');
        stack.push(dep);
        frames.push({ node: dep, next: 0 });
      }
    }
  }
  return stuck;
}
