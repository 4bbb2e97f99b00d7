// The tool surface of a connection as the lock records it, and the tool-level difference between
// two surfaces. Pure: the lock command, apply and `plan --check-tools` read the live tool lists and
// the lock file at the edges and meet here.
import type { ToolDescriptor } from '../model/api.js';
import type { DesiredState, JsonObject, Plan } from '../model/resources.js';
import { MCP_ANNOTATION_DEFAULTS, type LockedConnection, type LockedTool, type ToolAnnotations, type ToolSurfaceLock } from '../model/tool-lock.js';
import { canonicalJson, fingerprint } from './canonical.js';

/** The hints in the order the lock file writes them and diffs list them. */
export const ANNOTATION_HINTS = ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint'] as const satisfies ReadonlyArray<keyof ToolAnnotations>;
export type AnnotationHint = (typeof ANNOTATION_HINTS)[number];

/**
 * One tool as locked: an absent hint takes MCP's default (so a server that stops sending
 * `destructiveHint: false` shows as a change), and the description and input schema are kept only
 * as a digest: the lock is reviewed in diffs, and a rewritten description is what it must catch.
 */
export function lockedTool(tool: ToolDescriptor): LockedTool {
  const given = tool.annotations ?? {};
  const annotations = {} as ToolAnnotations;
  for (const hint of ANNOTATION_HINTS) {
    const value = given[hint];
    annotations[hint] = typeof value === 'boolean' ? value : MCP_ANNOTATION_DEFAULTS[hint];
  }
  return { name: tool.name, annotations, digest: fingerprint({ description: tool.description, inputSchema: tool.inputSchema }) };
}

/** Tools sorted by name (then digest, so that a server listing one name twice still locks the same way). */
export function lockConnection(tools: readonly ToolDescriptor[]): LockedConnection {
  return { tools: tools.map(lockedTool).sort(compareTools) };
}

/** The lock's order of tools: by name, then digest. */
export function compareTools(a: Pick<LockedTool, 'name' | 'digest'>, b: Pick<LockedTool, 'name' | 'digest'>): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.digest < b.digest ? -1 : a.digest > b.digest ? 1 : 0;
}

export interface AnnotationChange {
  hint: AnnotationHint;
  before: boolean;
  after: boolean;
}

export interface ChangedTool {
  name: string;
  /** The description or the input schema differs (their digest). */
  definitionChanged: boolean;
  annotations: AnnotationChange[];
}

export interface SurfaceDiff {
  added: LockedTool[];
  removed: LockedTool[];
  changed: ChangedTool[];
}

export type SurfaceStatus = 'same' | 'differs' | 'unlocked' | 'missing' | 'unreadable';

/** One connection's surface compared with its lock entry. */
export interface SurfaceCheck {
  connection: string;
  /**
   * same / differs: compared with the lock entry; unlocked: no entry (the live surface, when read,
   * is in `live`); missing: declared but not created in the environment yet; unreadable:
   * connections.test failed (`error` says why).
   */
  status: SurfaceStatus;
  diff?: SurfaceDiff;
  live?: LockedConnection;
  error?: string;
}

/** What `plan --check-tools` found, or why it did not look. */
export type ToolSurfaceReport = { checked: true; connections: SurfaceCheck[] } | { checked: false; reason: string };

/** Whether the report holds a surface that differs from the lock. */
export function surfaceDiffers(report: ToolSurfaceReport): boolean {
  return report.checked && report.connections.some((check) => check.status === 'differs');
}

export function isEmptyDiff(diff: SurfaceDiff): boolean {
  return diff.added.length === 0 && diff.removed.length === 0 && diff.changed.length === 0;
}

/** What changed from the locked surface to the live one, tool by tool, each list sorted by name. */
export function diffSurface(locked: LockedConnection, live: LockedConnection): SurfaceDiff {
  const before = byName(locked.tools);
  const after = byName(live.tools);
  const diff: SurfaceDiff = { added: [], removed: [], changed: [] };
  for (const [name, tools] of after) if (!before.has(name)) diff.added.push(...tools);
  for (const [name, tools] of before) if (!after.has(name)) diff.removed.push(...tools);
  for (const [name, was] of before) {
    const now = after.get(name);
    if (!now) continue;
    const [one, other] = [was[0] as LockedTool, now[0] as LockedTool];
    if (was.length !== 1 || now.length !== 1) {
      // A name listed more than once: no tool-by-tool pairing; any difference is a changed definition.
      if (canonicalJson(was) !== canonicalJson(now)) diff.changed.push({ name, definitionChanged: true, annotations: [] });
      continue;
    }
    const annotations: AnnotationChange[] = [];
    for (const hint of ANNOTATION_HINTS) {
      if (one.annotations[hint] !== other.annotations[hint]) annotations.push({ hint, before: one.annotations[hint], after: other.annotations[hint] });
    }
    const definitionChanged = one.digest !== other.digest;
    if (definitionChanged || annotations.length > 0) diff.changed.push({ name, definitionChanged, annotations });
  }
  const byToolName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  diff.added.sort(byToolName);
  diff.removed.sort(byToolName);
  diff.changed.sort(byToolName);
  return diff;
}

function byName(tools: readonly LockedTool[]): Map<string, LockedTool[]> {
  const out = new Map<string, LockedTool[]>();
  for (const tool of tools) {
    const list = out.get(tool.name);
    if (list) list.push(tool);
    else out.set(tool.name, [tool]);
  }
  return out;
}

export function emptyLock(): ToolSurfaceLock {
  return { version: 1, environments: {} };
}

/** The locked surface of one connection of one environment, if any. */
export function lockedSurface(lock: ToolSurfaceLock, environment: string, connection: string): LockedConnection | undefined {
  const connections = Object.hasOwn(lock.environments, environment) ? lock.environments[environment] : undefined;
  return connections && Object.hasOwn(connections, connection) ? connections[connection] : undefined;
}

/** A copy of the lock with these connections of one environment set; every other entry kept as it was. */
export function withSurfaces(lock: ToolSurfaceLock, environment: string, surfaces: ReadonlyMap<string, LockedConnection>): ToolSurfaceLock {
  const existing = Object.hasOwn(lock.environments, environment) ? lock.environments[environment] : undefined;
  const connections: Record<string, LockedConnection> = { ...existing };
  for (const [name, surface] of surfaces) connections[name] = surface;
  return { version: 1, environments: { ...lock.environments, [environment]: connections } };
}

const WRITES = new Set(['create', 'update', 'adopt', 'replace']);

/**
 * The connections whose tools agents changed by this plan can call (agent tools
 * `{type: connection, name}`), split by whether the connection exists before the apply: the ones
 * the plan creates can only be read once written. Each list sorted, without repeats.
 */
export function connectionsOfChangedAgents(plan: Plan, desired: DesiredState): { existing: string[]; created: string[] } {
  const agents = new Map(desired.resources.filter((resource) => resource.kind === 'agent').map((resource) => [resource.name, resource]));
  const createdConnections = new Set(plan.changes.filter((change) => change.kind === 'connection' && change.action === 'create').map((change) => change.name));
  const used = new Set<string>();
  for (const change of plan.changes) {
    if (change.kind !== 'agent' || !WRITES.has(change.action)) continue;
    for (const name of agentConnections(agents.get(change.name)?.spec)) used.add(name);
  }
  const all = [...used].sort();
  return { existing: all.filter((name) => !createdConnections.has(name)), created: all.filter((name) => createdConnections.has(name)) };
}

/** The connection names an agent definition's `tools` list names. */
export function agentConnections(spec: JsonObject | undefined): string[] {
  const tools = spec?.tools;
  if (!Array.isArray(tools)) return [];
  const names: string[] = [];
  for (const tool of tools) {
    if (tool && typeof tool === 'object' && !Array.isArray(tool) && tool.type === 'connection' && typeof tool.name === 'string') names.push(tool.name);
  }
  return names;
}
