// `ignore:` rules (agentform.yaml): field differences agentform leaves alone, like Terraform's
// `ignore_changes` and Argo CD's `ignoreDifferences`. Applied to the desired state before the plan
// is computed: an ignored field takes its live value, so the diff finds nothing there and every
// write (which merges the desired spec over the live one) carries the live value back. Pure.
import type {
  ActualState,
  DesiredResource,
  DesiredState,
  IgnoredDifference,
  JsonObject,
  JsonValue,
  ResourceAddress,
  ResourceKind,
} from '../model/resources.js';
import { addressOf } from '../model/resources.js';
import { addressMatches } from './address-glob.js';
import { diffSpec, joinPath } from './diff.js';
import { rulesFor } from './rules.js';

export interface IgnoreRule {
  /** An address glob (engine/address-glob.ts): `agent/support`, `agent/*`. */
  resource: string;
  /** A field path as plan names fields: `system`, `model.temperature`, `tools[0]`. */
  field: string;
  reason: string;
  /** The last day (YYYY-MM-DD) the rule holds. */
  until?: string;
}

/** How a rule is named in outputs and problems: `agent/* system`. */
export function ruleLabel(rule: Pick<IgnoreRule, 'resource' | 'field'>): string {
  return `${rule.resource} ${rule.field}`;
}

/** Whether the rule's field is `path` or holds it (`model` holds `model.temperature` and `model[0]`). */
export function fieldCovers(field: string, path: string): boolean {
  return path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);
}

/** `a.b[2].c` → ['a', 'b', 2, 'c']; a quoted key as plan names it, `byTool["gh.create"]` → ['byTool', 'gh.create']. */
export function fieldSegments(field: string): Array<string | number> {
  const segments: Array<string | number> = [];
  for (const match of field.matchAll(/\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|([^.[\]]+)/g)) {
    if (match[1] !== undefined) segments.push(Number(match[1]));
    else if (match[2] !== undefined) segments.push(JSON.parse(match[2]) as string);
    else segments.push(match[3] as string);
  }
  return segments;
}

/** Rules whose `until` is before `today` (both YYYY-MM-DD: they compare as strings). */
export function expiredRules<R extends IgnoreRule>(rules: readonly R[], today: string): R[] {
  return rules.filter((rule) => rule.until !== undefined && rule.until < today);
}

/** `today` as YYYY-MM-DD in UTC. */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function valueAt(value: JsonValue | undefined, segments: ReadonlyArray<string | number>): JsonValue | undefined {
  let current = value;
  for (const segment of segments) {
    if (current === null || current === undefined || typeof current !== 'object') return undefined;
    current = Array.isArray(current) ? (typeof segment === 'number' ? current[segment] : undefined) : (current as JsonObject)[String(segment)];
  }
  return current;
}

/** `value` with the field at `segments` set to `replacement` (removed when undefined); copies only the path. */
function withValueAt(value: JsonValue | undefined, segments: ReadonlyArray<string | number>, replacement: JsonValue | undefined): JsonValue | undefined {
  if (segments.length === 0) return replacement;
  const [head, ...rest] = segments as [string | number, ...Array<string | number>];
  if (Array.isArray(value) && typeof head === 'number') {
    // An element is replaced in place, never spliced out: removing one would shift every element
    // after it. Only the last one can go without moving the others (the live array ends before
    // it); a gap cannot be written either, so an index past the end changes nothing.
    if (head > value.length) return value;
    const inner = withValueAt(value[head], rest, replacement);
    if (inner === undefined && head < value.length - 1) return value;
    const copy = [...value];
    if (inner === undefined) copy.length = Math.min(copy.length, head);
    else copy[head] = inner;
    return copy;
  }
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) return value;
  const copy: JsonObject = { ...value };
  const inner = withValueAt(copy[String(head)], rest, replacement);
  if (inner === undefined) delete copy[String(head)];
  else copy[String(head)] = inner;
  return copy;
}

/** A declared spec (or a definition about to be written) with its ignored fields set to their live values. */
export function keepIgnoredFields(
  address: ResourceAddress,
  kind: ResourceKind,
  spec: JsonObject,
  live: JsonObject,
  rules: readonly IgnoreRule[],
): { spec: JsonObject; ignored: IgnoredDifference[] } {
  const applicable = rules.filter((rule) => addressMatches(rule.resource, address));
  if (applicable.length === 0) return { spec, ignored: [] };
  const ignored: IgnoredDifference[] = [];
  let kept = spec;
  const differences = diffSpec(spec, live, rulesFor(kind));
  for (const rule of applicable) {
    const covered = differences.filter((change) => fieldCovers(rule.field, change.path) && !ignored.some((seen) => seen.path === change.path));
    if (covered.length === 0) continue;
    const segments = fieldSegments(rule.field);
    kept = withValueAt(kept, segments, valueAt(live, segments)) as JsonObject;
    for (const change of covered) {
      ignored.push({
        address,
        path: change.path,
        ...(change.before !== undefined ? { before: change.before } : {}),
        ...(change.after !== undefined ? { after: change.after } : {}),
        rule: ruleLabel(rule),
        reason: rule.reason,
      });
    }
  }
  // An element that could not be kept live (see withValueAt) is still a difference: not ignored.
  if (ignored.length === 0) return { spec: kept, ignored };
  const remaining = new Set(diffSpec(kept, live, rulesFor(kind)).map((change) => change.path));
  return { spec: kept, ignored: ignored.filter((difference) => !remaining.has(difference.path)) };
}

/**
 * The desired state with every ignored difference taken from the live state, and the differences
 * left alone. A resource that does not exist yet is created as configured (a rule is about live
 * values to keep, as with ignore_changes).
 */
export function keepIgnored(desired: DesiredState, actual: ActualState, rules: readonly IgnoreRule[]): { desired: DesiredState; ignored: IgnoredDifference[] } {
  if (rules.length === 0) return { desired, ignored: [] };
  const live = new Map(actual.resources.map((resource) => [addressOf(resource.kind, resource.name), resource]));
  const ignored: IgnoredDifference[] = [];
  let changed = false;
  const resources = desired.resources.map((resource): DesiredResource => {
    const address = addressOf(resource.kind, resource.name);
    const remote = live.get(address);
    if (!remote) return resource;
    const kept = keepIgnoredFields(address, resource.kind, resource.spec, remote.spec, rules);
    if (kept.ignored.length === 0) return resource;
    ignored.push(...kept.ignored);
    changed = true;
    return { ...resource, spec: kept.spec };
  });
  return { desired: changed ? { ...desired, resources } : desired, ignored };
}

/**
 * Where a rule's field indexes into an array the plan compares as a whole (a set, or an array with
 * no objects in it, `scopes[0]`): the plan only ever names the whole array, so such an index would
 * never match a difference. The array's path, or undefined when the index is into an array the
 * plan compares element by element (`tools[2]`) or the spec does not say.
 */
export function indexIntoWholeArray(kind: ResourceKind, field: string, spec: JsonObject): string | undefined {
  const sets = rulesFor(kind).sets;
  let value: JsonValue | undefined = spec;
  let path = '';
  let pattern = '';
  for (const segment of fieldSegments(field)) {
    if (typeof segment === 'number') {
      if (!Array.isArray(value)) return undefined;
      if (sets?.has(pattern) || !value.some(isJsonObject)) return path;
      path = `${path}[${segment}]`;
      pattern = `${pattern}[]`;
      value = value[segment];
    } else {
      path = joinPath(path, segment);
      pattern = joinPath(pattern, segment);
      value = isJsonObject(value) ? value[segment] : undefined;
    }
  }
  return undefined;
}

function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Rules that name no declared resource, or no field any of the resources they name declares. */
export function unmatchedRules<R extends IgnoreRule>(rules: readonly R[], declared: ReadonlyArray<{ address: string; specs: readonly JsonObject[] }>): R[] {
  return rules.filter((rule) => {
    const named = declared.filter((resource) => addressMatches(rule.resource, resource.address));
    const segments = fieldSegments(rule.field);
    return !named.some((resource) => resource.specs.some((spec) => valueAt(spec, segments) !== undefined));
  });
}
