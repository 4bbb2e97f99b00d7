// diff-envs: how two environments' live agents differ, as a Plan (so the plan renderer shows it)
// plus where each side's version came from. Pure.
//
// Direction: environment A's definitions are the "desired" side and B's the "actual" side, so the
// plan reads "what applying A's agents to B would change": `~ field: B's value → A's value`,
// `+` only in A, `-` only in B. A's definitions are taken as `export` would write them: fields the
// configuration schema does not know are not compared, since they are the server's own (one may
// change on every read) and no configuration could set them.
import { computePlan } from '../engine/plan.js';
import type { ActualState, DesiredResource, JsonObject, Plan } from '../model/resources.js';
import { exportableSpec, type SchemaRef } from './prune.js';

export interface EnvironmentAgents {
  /** agentform's name for the environment. */
  name: string;
  slug: string;
  actual: ActualState;
}

export interface AgentProvenance {
  agent: string;
  a?: VersionOrigin;
  b?: VersionOrigin;
}

export interface VersionOrigin {
  version?: number;
  /** Where the version was promoted from, when it was: an environment name (or id when unknown). */
  promotedFrom?: { environment: string; version: number };
}

export interface EnvironmentComparison {
  plan: Plan;
  provenance: AgentProvenance[];
}

function agentsOf(state: ActualState) {
  return state.resources.filter((resource) => resource.kind === 'agent');
}

function originOf(remote: JsonObject, environmentNames: ReadonlyMap<string, string>): VersionOrigin {
  const origin: VersionOrigin = {};
  if (typeof remote.version === 'number') origin.version = remote.version;
  const from = remote.promotedFrom;
  if (from && typeof from === 'object' && !Array.isArray(from) && typeof from.version === 'number') {
    const id = String(from.environmentId);
    origin.promotedFrom = { environment: environmentNames.get(id) ?? id, version: from.version };
  }
  return origin;
}

/** `agentSchema`: the agent configuration schema (config/schemas.ts); without it, every field of A is compared. */
export function compareEnvironments(
  a: EnvironmentAgents,
  b: EnvironmentAgents,
  environmentNames: ReadonlyMap<string, string> = new Map(),
  agentSchema?: SchemaRef,
): EnvironmentComparison {
  const desired: DesiredResource[] = agentsOf(a.actual).map((agent) => ({
    kind: 'agent',
    name: agent.name,
    spec: exportableSpec(agent.spec, agentSchema).spec,
    writeOnly: {},
    references: [],
  }));
  const plan = computePlan(
    { projectDir: '.', target: { name: b.name, slug: b.slug, url: '', prune: true }, resources: desired },
    { environmentSlug: b.slug, resources: agentsOf(b.actual), missingOperations: [...a.actual.missingOperations, ...b.actual.missingOperations] },
    // Every agent only in B is a difference, however many there are.
    { prune: true, allowMassDelete: true },
  );
  const names = new Map(environmentNames);
  for (const side of [a, b]) {
    const environment = side.actual.resources.find((resource) => resource.kind === 'environment');
    if (environment) names.set(environment.id, side.name);
  }
  const byAgent = new Map<string, AgentProvenance>();
  for (const [side, state] of [
    ['a', a.actual],
    ['b', b.actual],
  ] as const) {
    for (const agent of agentsOf(state)) {
      const entry = byAgent.get(agent.name) ?? { agent: agent.name };
      entry[side] = originOf(agent.remote, names);
      byAgent.set(agent.name, entry);
    }
  }
  const provenance = [...byAgent.values()].sort((x, y) => (x.agent < y.agent ? -1 : x.agent > y.agent ? 1 : 0));
  return { plan, provenance };
}

function describeOrigin(environment: string, origin: VersionOrigin | undefined): string {
  if (!origin) return `not in ${environment}`;
  const version = origin.version !== undefined ? `${environment} v${origin.version}` : environment;
  return origin.promotedFrom ? `${version} (promoted from ${origin.promotedFrom.environment} v${origin.promotedFrom.version})` : version;
}

/** One line per agent: which version each side runs and where it came from. */
export function provenanceLines(comparison: EnvironmentComparison, a: string, b: string): string[] {
  if (comparison.provenance.length === 0) return [`Neither ${a} nor ${b} has agents.`];
  const width = Math.max(...comparison.provenance.map((entry) => `agent/${entry.agent}`.length));
  return [
    'Versions:',
    ...comparison.provenance.map((entry) => `  ${`agent/${entry.agent}`.padEnd(width)}  ${describeOrigin(a, entry.a)}  |  ${describeOrigin(b, entry.b)}`),
  ];
}

/** The closing line: how many agents differ. */
export function comparisonSummary(comparison: EnvironmentComparison, a: string, b: string): string {
  const { add, change, replace, destroy } = comparison.plan.summary;
  const differing = change + replace;
  if (add + differing + destroy === 0) return `No differences: the agents of ${a} and ${b} have the same definitions.`;
  return `Agents: ${differing} differ, ${add} only in ${a}, ${destroy} only in ${b}.`;
}
