// The identity dimension of capabilities: for each agent, which identities can reach which
// connection's tools, through which grant, and what a change adds or removes. Pure: the agents,
// their capabilities (capabilities.ts) and the grants come in as values.
//
// Assumptions (docs/policy.md "Identities"; the API does not show how the server picks a credential):
// - A grant subject (`user:alice`) reaches every tool of the grant's connection that the agent
//   reaches, through its grant.
// - When no agent on the chain has `identity.required: true`, an anonymous caller reaches the
//   connection's tools through the connection's own credential.
// - Whether the server refuses an identity whose scope is not in `identity.scopesAllowed` is not
//   shown: assume the worst, it is admitted (the entry carries a note; a rule warns).
// - An identity with no grant on a connection is not listed: nothing says what it acts as there.
import type { JsonObject, JsonValue } from '../model/resources.js';
import { subagentNames } from './capabilities.js';
import type { AgentCapabilities, AgentIdentityDiff, IdentityChange, IdentityReach } from '../model/safety.js';

export type { AgentIdentityDiff, IdentityChange, IdentityReach } from '../model/safety.js';

export const ANONYMOUS = 'anonymous';

/** A per-identity credential grant, without its token. */
export interface GrantSubject {
  /** The grant's address name, `<connection>:<scope>:<id>`. */
  name: string;
  connection: string;
  scope: string;
  id: string;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The grants among resources (desired or actual: the same spec shape). */
export function grantsOf(resources: ReadonlyArray<{ kind: string; name: string; spec: JsonObject }>): GrantSubject[] {
  const grants: GrantSubject[] = [];
  for (const resource of resources) {
    if (resource.kind !== 'grant') continue;
    const { connection, identity } = resource.spec;
    if (typeof connection !== 'string' || !isObject(identity)) continue;
    if (typeof identity.scope !== 'string' || typeof identity.id !== 'string') continue;
    grants.push({ name: resource.name, connection, scope: identity.scope, id: identity.id });
  }
  return grants;
}

export function identityRequired(spec: JsonObject | undefined): boolean {
  return isObject(spec?.identity) && spec.identity.required === true;
}

/** The agent's `identity.scopesAllowed`; undefined when it names none (no restriction stated). */
export function scopesAllowed(spec: JsonObject | undefined): string[] | undefined {
  const allowed = isObject(spec?.identity) ? spec.identity.scopesAllowed : undefined;
  if (!Array.isArray(allowed)) return undefined;
  const scopes = allowed.filter((scope): scope is string => typeof scope === 'string');
  return scopes.length > 0 ? scopes : undefined;
}

/** Why a grant's scope may not be admitted along the chain, when an agent on it restricts scopes. */
export function scopeNote(scope: string, chain: ReadonlyArray<{ name: string; spec: JsonObject | undefined }>): string | undefined {
  for (const agent of chain) {
    const allowed = scopesAllowed(agent.spec);
    if (allowed && !allowed.includes(scope))
      return `scope ${scope} is not in ${agent.name}'s identity.scopesAllowed [${allowed.join(', ')}]: assumed admitted (not shown)`;
  }
  return undefined;
}

/** The connection tools an agent reaches itself (not through a subagent), grouped by connection. */
function ownConnectionTools(reached: AgentCapabilities | undefined): Map<string, string[]> {
  const byConnection = new Map<string, string[]>();
  for (const capability of reached?.capabilities ?? []) {
    // A denied tool is reached by no one, whatever the credential.
    if (capability.via.length > 0 || capability.source !== 'connection' || capability.decision === 'denied') continue;
    const connection = capability.tool.slice(0, capability.tool.indexOf('.'));
    byConnection.set(connection, [...(byConnection.get(connection) ?? []), capability.tool]);
  }
  return byConnection;
}

/**
 * The anonymous caller's reach: its own traversal, breadth first, that never passes an agent
 * requiring an identity, so a subagent reached by several chains counts through any open one
 * (the capability list keeps only the shortest chain, which may be closed).
 */
function anonymousReach(root: string, specs: ReadonlyMap<string, JsonObject>, capabilities: ReadonlyMap<string, AgentCapabilities>): IdentityReach[] {
  const reach: IdentityReach[] = [];
  const seen = new Set<string>();
  const queue: Array<{ name: string; via: string[] }> = [{ name: root, via: [] }];
  while (queue.length > 0) {
    const next = queue.shift() as { name: string; via: string[] };
    if (seen.has(next.name)) continue;
    seen.add(next.name);
    const spec = specs.get(next.name);
    if (!spec || identityRequired(spec)) continue;
    for (const [connection, tools] of ownConnectionTools(capabilities.get(next.name))) reach.push({ identity: ANONYMOUS, connection, via: next.via, tools });
    for (const name of subagentNames(spec)) queue.push({ name, via: [...next.via, name] });
  }
  return reach;
}

function compareReach(a: IdentityReach, b: IdentityReach): number {
  return (
    compareText(a.via.join('\u0000'), b.via.join('\u0000')) ||
    compareText(a.connection, b.connection) ||
    Number(b.identity === ANONYMOUS) - Number(a.identity === ANONYMOUS) ||
    compareText(a.grant ?? '', b.grant ?? '')
  );
}

/** Every agent's identity reach, sorted by chain, connection, then identity (anonymous first). */
export function computeIdentityReach(
  agents: ReadonlyArray<{ name: string; spec: JsonObject }>,
  capabilities: ReadonlyMap<string, AgentCapabilities>,
  grants: readonly GrantSubject[],
): Map<string, IdentityReach[]> {
  const specs = new Map(agents.map((agent) => [agent.name, agent.spec]));
  const grantsByConnection = new Map<string, GrantSubject[]>();
  for (const grant of grants) grantsByConnection.set(grant.connection, [...(grantsByConnection.get(grant.connection) ?? []), grant]);
  const out = new Map<string, IdentityReach[]>();
  for (const [agent, reached] of capabilities) {
    // Connection tools grouped by chain and connection, in the capability list's order.
    const groups = new Map<string, { via: string[]; connection: string; tools: string[] }>();
    for (const capability of reached.capabilities) {
      // A denied tool is reached by no one, whatever the credential.
      if (capability.source !== 'connection' || capability.decision === 'denied') continue;
      const connection = capability.tool.slice(0, capability.tool.indexOf('.'));
      const key = `${capability.via.join('>')}|${connection}`;
      const group = groups.get(key) ?? { via: capability.via, connection, tools: [] };
      group.tools.push(capability.tool);
      groups.set(key, group);
    }
    const reach: IdentityReach[] = specs.has(agent) ? anonymousReach(agent, specs, capabilities) : [];
    for (const { via, connection, tools } of groups.values()) {
      const chain = [agent, ...via].map((name) => ({ name, spec: specs.get(name) }));
      const subjects = [...(grantsByConnection.get(connection) ?? [])].sort((a, b) => compareText(a.name, b.name));
      for (const grant of subjects) {
        const note = scopeNote(grant.scope, chain);
        reach.push({ identity: `${grant.scope}:${grant.id}`, connection, via, grant: grant.name, tools, ...(note ? { note } : {}) });
      }
    }
    out.set(agent, reach.sort(compareReach));
  }
  return out;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const keyOf = (reach: IdentityReach) => `${reach.via.join('>')}|${reach.connection}|${reach.identity}`;

/** The identity changes of one agent; undefined when nothing changes. */
export function diffAgentIdentities(
  agent: string,
  before: readonly IdentityReach[] | undefined,
  after: readonly IdentityReach[] | undefined,
): AgentIdentityDiff | undefined {
  const beforeByKey = new Map((before ?? []).map((reach) => [keyOf(reach), reach]));
  const afterByKey = new Map((after ?? []).map((reach) => [keyOf(reach), reach]));
  const changes: IdentityChange[] = [];
  for (const [key, reach] of afterByKey) {
    const was = beforeByKey.get(key);
    if (!was) changes.push({ change: 'added', reach });
    // E.g. identity.scopesAllowed changed: the same identity, now (or no longer) outside what is allowed.
    else if (was.note !== reach.note || was.grant !== reach.grant) changes.push({ change: 'changed', before: was, reach });
  }
  for (const [key, reach] of beforeByKey) if (!afterByKey.has(key)) changes.push({ change: 'removed', reach });
  if (changes.length === 0) return undefined;
  changes.sort((a, b) => compareText(keyOf(a.reach), keyOf(b.reach)) || compareText(a.change, b.change));
  return { agent, changes, reach: [...(after ?? before ?? [])] };
}

/** Every agent whose identity reach changes, sorted by name. */
export function diffIdentityReach(before: ReadonlyMap<string, IdentityReach[]>, after: ReadonlyMap<string, IdentityReach[]>): AgentIdentityDiff[] {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  return names.flatMap((name) => {
    const diff = diffAgentIdentities(name, before.get(name), after.get(name));
    return diff ? [diff] : [];
  });
}
