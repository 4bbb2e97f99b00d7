// Least privilege from the lock (`strictTools: true` on an environment): each agent's tool policy
// is derived from agentform.lock.yaml, so that a tool a connection's server adds after the review
// is denied at call time instead of inheriting a `default: allow`. Pure: specs and the lock come in
// as values; the plan edge applies the result before diffing.
//
// The API keys `policies.toolCalls.byTool` by bare tool name, with one `default` per agent (no
// per-connection default is shown), so strictness is per agent: an agent under strict mode gets
// `default: deny` and one derived `byTool` entry for each tool it is known to reach.
import type { DesiredResource, DesiredState, JsonObject, JsonValue } from '../model/resources.js';
import type { ToolSurfaceReport } from './tool-surface.js';
import type { DerivedToolEntry, DerivedToolPolicy, LockedConnection } from '../model/tool-lock.js';

export type { DerivedToolEntry, DerivedToolPolicy } from '../model/tool-lock.js';

/** The locked surface of each connection of one environment, by connection name. */
export type StrictSurfaces = Readonly<Record<string, LockedConnection>>;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The decision a tool the user did not list gets: what their `default` says. With none written it
 * is `ask`: the API does not show what a missing default means (a server may fill `ask`), and
 * strict mode must never grant more than the server would. Where a hook decides such calls (a hook
 * with `default: allow`), the derived entry must not bypass it (a `byTool: allow` runs without
 * asking the hook), so it is `ask` too. `undefined`: the tool stays denied, no entry is needed.
 */
export function lockedToolDecision(toolCalls: JsonObject): string | undefined {
  const userDefault = typeof toolCalls.default === 'string' ? toolCalls.default : undefined;
  if (userDefault === 'deny') return undefined;
  if (userDefault === undefined) return 'ask';
  const hasHook = isObject(toolCalls.hook) && typeof toolCalls.hook.connection === 'string';
  if (userDefault === 'allow') return hasHook ? 'ask' : 'allow';
  return userDefault;
}

/** The tools an agent can reach and where each comes from, sandbox presets aside (their names are not published). */
function knownTools(spec: JsonObject, surfaces: StrictSurfaces): { tools: Array<{ tool: string; from: string }>; unlocked: string[] } {
  const tools: Array<{ tool: string; from: string }> = [];
  const unlocked: string[] = [];
  for (const item of Array.isArray(spec.tools) ? spec.tools : []) {
    if (!isObject(item) || typeof item.name !== 'string') continue;
    if (item.type === 'connection') {
      const surface = Object.hasOwn(surfaces, item.name) ? surfaces[item.name] : undefined;
      if (!surface) unlocked.push(item.name);
      else for (const tool of surface.tools) tools.push({ tool: tool.name, from: `connection ${item.name}` });
    } else if (item.type === 'builtin') {
      // Only builtins are known to be tools of that name: an unknown type is allowed nothing.
      tools.push({ tool: item.name, from: 'builtin' });
    }
  }
  const sandbox = isObject(spec.sandbox) && isObject(spec.sandbox.tools) ? spec.sandbox.tools : {};
  const denied = new Set(Array.isArray(sandbox.deny) ? sandbox.deny : []);
  for (const name of Array.isArray(sandbox.allow) ? sandbox.allow : []) {
    if (typeof name === 'string' && !denied.has(name)) tools.push({ tool: name, from: 'sandbox allow list' });
  }
  return { tools, unlocked: [...new Set(unlocked)].sort() };
}

/** One agent's spec under strict mode, and what was derived (the user's own byTool entries win). */
export function deriveStrictPolicy(agent: string, spec: JsonObject, surfaces: StrictSurfaces): { spec: JsonObject; derived: DerivedToolPolicy } {
  const policies = isObject(spec.policies) ? spec.policies : {};
  const toolCalls = isObject(policies.toolCalls) ? policies.toolCalls : {};
  const userByTool = isObject(toolCalls.byTool) ? toolCalls.byTool : {};
  const decision = lockedToolDecision(toolCalls);
  const { tools, unlocked } = knownTools(spec, surfaces);
  const entries = new Map<string, DerivedToolEntry>();
  if (decision !== undefined) {
    for (const { tool, from } of tools) {
      if (Object.hasOwn(userByTool, tool) || entries.has(tool)) continue;
      entries.set(tool, { tool, decision, from });
    }
  }
  const sorted = [...entries.values()].sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  const byTool: JsonObject = {};
  for (const entry of sorted) byTool[entry.tool] = entry.decision;
  Object.assign(byTool, userByTool);
  const derived: DerivedToolPolicy = {
    agent,
    default: 'deny',
    ...(typeof toolCalls.default === 'string' ? { userDefault: toolCalls.default } : {}),
    entries: sorted,
    unlockedConnections: unlocked,
  };
  return { spec: { ...spec, policies: { ...policies, toolCalls: { ...toolCalls, default: 'deny', byTool } } }, derived };
}

/** The spec with `policies.toolCalls` replaced (removed when `toolCalls` is undefined). */
function withToolCalls(spec: JsonObject, toolCalls: JsonValue | undefined): JsonObject {
  const { toolCalls: _replaced, ...policies } = isObject(spec.policies) ? spec.policies : {};
  const next: JsonObject = toolCalls === undefined ? policies : { ...policies, toolCalls };
  const { policies: _old, ...rest } = spec;
  return Object.keys(next).length === 0 ? rest : { ...rest, policies: next };
}

/**
 * Every agent of the desired state under strict mode; other resources as they were. `configured`:
 * the state before declarative promotion. A promoted agent's tool policy is the target's own
 * (what its configuration writes), not the source's live one: that one was derived from the
 * source's lock, and its `default: deny` and entries would pass for the user's. What the rules
 * judge of a promoted agent (`judgedSpec`) gets the derived policy too.
 */
export function withStrictToolPolicies(
  desired: DesiredState,
  surfaces: StrictSurfaces,
  configured?: DesiredState,
): { desired: DesiredState; derived: DerivedToolPolicy[] } {
  const derived: DerivedToolPolicy[] = [];
  const resources = desired.resources.map((resource): DesiredResource => {
    if (resource.kind !== 'agent') return resource;
    const own = resource.promotion && configured?.resources.find((other) => other.kind === 'agent' && other.name === resource.name);
    const ownToolCalls = own && isObject(own.spec.policies) ? own.spec.policies.toolCalls : undefined;
    const written = resource.promotion && configured ? withToolCalls(resource.spec, ownToolCalls) : resource.spec;
    const result = deriveStrictPolicy(resource.name, written, surfaces);
    derived.push(result.derived);
    const derivedToolCalls = (result.spec.policies as JsonObject).toolCalls;
    return {
      ...resource,
      spec: result.spec,
      ...(resource.judgedSpec ? { judgedSpec: withToolCalls(resource.judgedSpec, derivedToolCalls) } : {}),
    };
  });
  derived.sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0));
  return { desired: { ...desired, resources }, derived };
}

/**
 * The derived policies with, for each agent, the tools its connections serve now but the lock does
 * not record (`plan --check-tools` read them): what strict mode denies at call time. A tool the
 * user lists in `byTool` is theirs to decide and is not shown as denied. One named like a tool
 * derived from elsewhere (another connection, a builtin) takes that entry's decision, as `byTool`
 * is keyed by bare name: it is a collision, shown as such.
 */
export function withServedButUnlocked(derived: readonly DerivedToolPolicy[], desired: DesiredState, report: ToolSurfaceReport): DerivedToolPolicy[] {
  if (!report.checked) return [...derived];
  const added = new Map(report.connections.map((check) => [check.connection, check.diff?.added.map((tool) => tool.name) ?? []]));
  const specs = new Map(desired.resources.filter((resource) => resource.kind === 'agent').map((resource) => [resource.name, resource.spec]));
  return derived.map((policy) => {
    const spec = specs.get(policy.agent) ?? {};
    const toolCalls = isObject(spec.policies) && isObject(spec.policies.toolCalls) ? spec.policies.toolCalls : {};
    const derivedEntries = new Map(policy.entries.map((entry) => [entry.tool, entry]));
    // The spec may already carry the derived entries: only the others are the user's.
    const userWritten = new Set(Object.keys(isObject(toolCalls.byTool) ? toolCalls.byTool : {}).filter((tool) => !derivedEntries.has(tool)));
    const denied: DerivedToolEntry[] = [];
    const collisions: DerivedToolEntry[] = [];
    for (const item of Array.isArray(spec.tools) ? spec.tools : []) {
      if (!isObject(item) || item.type !== 'connection' || typeof item.name !== 'string') continue;
      for (const tool of added.get(item.name) ?? []) {
        if (userWritten.has(tool) || denied.some((entry) => entry.tool === tool) || collisions.some((entry) => entry.tool === tool)) continue;
        const same = derivedEntries.get(tool);
        if (same) collisions.push({ tool, decision: same.decision, from: `connection ${item.name}` });
        else denied.push({ tool, decision: 'deny', from: `connection ${item.name}` });
      }
    }
    denied.sort(byToolName);
    collisions.sort(byToolName);
    return { ...policy, denied, ...(collisions.length > 0 ? { collisions } : {}) };
  });
}

function byToolName(a: DerivedToolEntry, b: DerivedToolEntry): number {
  return a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0;
}
