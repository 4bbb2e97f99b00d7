// What each agent can do: every tool it can reach (builtin, sandbox, and the tools of the
// connections it names, through its subagents too), whether a call runs without a decision, is
// decided by a hook, or is denied, and what the tool may do (read-only, destructive) as the lock
// records its MCP annotations. Pure: the agent specs (desired or actual, the same shape) and the
// lock come in as values.
//
// Assumptions (docs/policy.md lists them; api-contract.md "Agent tools" for connection tools):
// - `tools[] {type: connection, name: C}` gives the agent every tool C serves; the lock names them.
// - `policies.toolCalls.byTool` keys are bare tool names; an entry there wins over `default`.
// - A call whose decision is `allow` runs without asking anyone, except a `default: allow` with a
//   hook, which the hook decides; `deny` refuses; any other value (e.g. `ask`) waits for a
//   decision. With neither a byTool entry, a default nor a hook, the server's default is not shown
//   by the API: assume the worst, that the call runs without a decision.
import type { JsonObject, JsonValue } from '../model/resources.js';
import type { AgentCapabilities, Capability, ToolDecision, ToolEffect } from '../model/safety.js';
import { MCP_ANNOTATION_DEFAULTS, type ToolAnnotations, type LockedConnection } from '../model/tool-lock.js';

export type { AgentCapabilities, Capability, ToolDecision, ToolEffect, ToolSource } from '../model/safety.js';

/** An agent by its name (the slug) and its spec, as desired or as the server reports it. */
export interface AgentSpec {
  name: string;
  spec: JsonObject;
}

/** The locked surface of each connection of one environment, by connection name. */
export type LockedSurfaces = Readonly<Record<string, LockedConnection>>;

/** Builtin tools whose effect is known; others are `unknown`. */
const BUILTIN_EFFECTS: Readonly<Record<string, ToolEffect>> = {
  current_time: 'read-only',
};

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectAt(spec: JsonObject, ...path: string[]): JsonObject {
  let current: JsonValue | undefined = spec;
  for (let step = 0; step < path.length; step++) current = isObject(current) ? current[path[step] as string] : undefined;
  return isObject(current) ? current : {};
}

function stringsAt(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function effectOf(annotations: ToolAnnotations | undefined): ToolEffect {
  const hints = annotations ?? MCP_ANNOTATION_DEFAULTS;
  if (hints.readOnlyHint) return 'read-only';
  return hints.destructiveHint ? 'destructive' : 'write';
}

/** How a call to `toolName` is decided under the agent's `policies`. */
export function decisionFor(spec: JsonObject, toolName: string): ToolDecision {
  const toolCalls = objectAt(spec, 'policies', 'toolCalls');
  const hasHook = isObject(toolCalls.hook) && typeof toolCalls.hook.connection === 'string';
  const byTool = isObject(toolCalls.byTool) ? toolCalls.byTool : {};
  const explicit = byTool[toolName];
  if (typeof explicit === 'string') return explicit === 'allow' ? 'allowed' : explicit === 'deny' ? 'denied' : 'hook';
  const fallback = toolCalls.default;
  if (fallback === 'deny') return 'denied';
  if (typeof fallback === 'string' && fallback !== 'allow') return 'hook';
  return hasHook ? 'hook' : 'allowed';
}

/** The agent's own tools, without subagents. */
export function ownCapabilities(agent: AgentSpec, surfaces: LockedSurfaces | undefined): { capabilities: Capability[]; unknownConnections: string[] } {
  const capabilities: Capability[] = [];
  const unknownConnections: string[] = [];
  const tools = Array.isArray(agent.spec.tools) ? agent.spec.tools : [];
  for (const item of tools) {
    if (!isObject(item) || typeof item.name !== 'string') continue;
    if (item.type === 'connection') {
      const surface = surfaces?.[item.name];
      if (!surface) {
        unknownConnections.push(item.name);
        capabilities.push({
          tool: `${item.name}.*`,
          source: 'connection',
          decision: decisionFor(agent.spec, '*'),
          effect: 'unknown',
          via: [],
          note: `no lock entry for connection ${item.name}: its tools are unknown (run agentform lock)`,
        });
        continue;
      }
      for (const tool of surface.tools) {
        capabilities.push({
          tool: `${item.name}.${tool.name}`,
          source: 'connection',
          decision: decisionFor(agent.spec, tool.name),
          effect: effectOf(tool.annotations),
          via: [],
        });
      }
    } else if (item.type === 'builtin') {
      capabilities.push({
        tool: `builtin.${item.name}`,
        source: 'builtin',
        decision: decisionFor(agent.spec, item.name),
        effect: BUILTIN_EFFECTS[item.name] ?? 'unknown',
        via: [],
      });
    } else {
      capabilities.push({
        tool: `${String(item.type)}.${item.name}`,
        source: 'builtin',
        decision: decisionFor(agent.spec, item.name),
        effect: 'unknown',
        via: [],
        note: `tool type ${JSON.stringify(item.type)} is not one agentform knows`,
      });
    }
  }
  const sandbox = objectAt(agent.spec, 'sandbox');
  if (Object.keys(sandbox).length > 0) {
    const sandboxTools = objectAt(sandbox, 'tools');
    const preset = typeof sandboxTools.preset === 'string' ? sandboxTools.preset : undefined;
    const deny = new Set(stringsAt(sandboxTools.deny));
    const allow = stringsAt(sandboxTools.allow).filter((name) => !deny.has(name));
    // The preset's tool names are not published: one entry stands for all of them.
    capabilities.push({
      tool: 'sandbox.*',
      source: 'sandbox',
      decision: decisionFor(agent.spec, '*'),
      effect: preset === 'read-only' ? 'read-only' : 'unknown',
      via: [],
      note: preset === undefined ? 'sandbox tools: no preset set (server default)' : `sandbox preset ${preset}`,
    });
    for (const name of allow)
      capabilities.push({ tool: `sandbox.${name}`, source: 'sandbox', decision: decisionFor(agent.spec, name), effect: 'unknown', via: [] });
    for (const name of deny) capabilities.push({ tool: `sandbox.${name}`, source: 'sandbox', decision: 'denied', effect: 'unknown', via: [] });
  }
  return { capabilities, unknownConnections };
}

function subagentNames(spec: JsonObject): string[] {
  const names: string[] = [];
  if (!Array.isArray(spec.subagents)) return names;
  for (const item of spec.subagents) if (isObject(item) && typeof item.agent === 'string') names.push(item.agent);
  return names;
}

function compareCapabilities(a: Capability, b: Capability): number {
  const va = a.via.join('\u0000');
  const vb = b.via.join('\u0000');
  if (va !== vb) return va < vb ? -1 : 1;
  return a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0;
}

/**
 * Every agent's capabilities, its subagents' included (each subagent reached once, by its
 * shortest chain; a cycle ends where it comes back).
 */
export function computeCapabilities(agents: readonly AgentSpec[], surfaces: LockedSurfaces | undefined): Map<string, AgentCapabilities> {
  const byName = new Map(agents.map((agent) => [agent.name, agent]));
  const own = new Map(agents.map((agent) => [agent.name, ownCapabilities(agent, surfaces)]));
  const out = new Map<string, AgentCapabilities>();
  for (const agent of agents) {
    const subagents = subagentNames(agent.spec);
    const mine = own.get(agent.name);
    if (subagents.length === 0) {
      // Most agents have no subagents: their own tools are all they can reach (no chain to walk).
      out.set(agent.name, {
        agent: agent.name,
        capabilities: [...(mine?.capabilities ?? [])].sort(compareCapabilities),
        unknownConnections: uniqueSorted(mine?.unknownConnections ?? []),
        missingSubagents: [],
      });
      continue;
    }
    const capabilities = [...(mine?.capabilities ?? [])];
    const unknown = new Set(mine?.unknownConnections ?? []);
    const missing = new Set<string>();
    // Breadth first: each subagent once, by its shortest chain.
    const seen = new Set([agent.name]);
    const queue: Array<{ name: string; via: string[] }> = subagents.map((name) => ({ name, via: [name] }));
    while (queue.length > 0) {
      const next = queue.shift() as { name: string; via: string[] };
      if (seen.has(next.name)) continue;
      seen.add(next.name);
      const child = byName.get(next.name);
      if (!child) {
        missing.add(next.name);
        continue;
      }
      for (const capability of own.get(next.name)?.capabilities ?? []) capabilities.push({ ...capability, via: next.via });
      for (const name of own.get(next.name)?.unknownConnections ?? []) unknown.add(name);
      for (const name of subagentNames(child.spec)) queue.push({ name, via: [...next.via, name] });
    }
    out.set(agent.name, {
      agent: agent.name,
      capabilities: capabilities.sort(compareCapabilities),
      unknownConnections: [...unknown].sort(),
      missingSubagents: [...missing].sort(),
    });
  }
  return out;
}

function uniqueSorted(names: readonly string[]): string[] {
  return names.length === 0 ? [] : [...new Set(names)].sort();
}

/** The longest subagent chain below an agent (0: none) and whether it loops back; cycle-safe. */
export function subagentDepth(agent: string, agents: ReadonlyMap<string, JsonObject>): { depth: number; cycle: boolean } {
  let cycle = false;
  const walk = (name: string, path: Set<string>): number => {
    const spec = agents.get(name);
    if (!spec) return 0;
    let deepest = 0;
    for (const child of subagentNames(spec)) {
      if (path.has(child)) {
        cycle = true;
        continue;
      }
      deepest = Math.max(deepest, 1 + walk(child, new Set([...path, child])));
    }
    return deepest;
  };
  const depth = walk(agent, new Set([agent]));
  return { depth, cycle };
}

export { subagentNames };
