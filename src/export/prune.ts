// Leaves out of a live spec what a person would not write: nulls, values equal to the server's
// default, and objects that end up empty. Pure.
import { canonicalJson } from '../engine/canonical.js';
import { joinPath, jsonEqual } from '../engine/diff.js';
import { rulesFor } from '../engine/rules.js';
import type { JsonObject, JsonValue, ResourceKind } from '../model/resources.js';
import { ALWAYS_WRITTEN, PRESENCE_MATTERS, exportDefaultsFor } from './defaults.js';

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameSet(a: JsonValue[], b: JsonValue[]): boolean {
  const left = new Set(a.map(canonicalJson));
  const right = new Set(b.map(canonicalJson));
  return left.size === right.size && [...left].every((item) => right.has(item));
}

export function withoutDefaults(kind: ResourceKind, spec: JsonObject): JsonObject {
  const defaults = exportDefaultsFor(kind);
  const sets = rulesFor(kind).sets ?? new Set<string>();
  const keepEmpty = PRESENCE_MATTERS[kind] ?? new Set<string>();

  const isDefault = (value: JsonValue, pattern: string): boolean => {
    if (!Object.prototype.hasOwnProperty.call(defaults, pattern)) return false;
    const fallback = defaults[pattern] as JsonValue;
    if (Array.isArray(value) && Array.isArray(fallback) && sets.has(pattern)) return sameSet(value, fallback);
    return jsonEqual(value, fallback);
  };

  /** undefined: leave the field out. */
  const prune = (value: JsonValue, pattern: string): JsonValue | undefined => {
    if (value === null || isDefault(value, pattern)) return undefined;
    if (Array.isArray(value)) {
      // Elements are kept (their position means something); only their fields are pruned.
      return value.map((element) => (isObject(element) ? pruneObject(element, `${pattern}[]`) : element));
    }
    if (isObject(value)) {
      const pruned = pruneObject(value, pattern);
      return Object.keys(pruned).length === 0 && !keepEmpty.has(pattern) ? undefined : pruned;
    }
    return value;
  };

  const pruneObject = (object: JsonObject, pattern: string): JsonObject => {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(object)) {
      if (value === undefined) continue;
      const kept = prune(value, joinPath(pattern, key));
      if (kept !== undefined) out[key] = kept;
    }
    return out;
  };

  const pruned = pruneObject(spec, '');
  // Top-level fields of the minimal request stay, as their empty value when everything in them was a default.
  for (const [field, empty] of Object.entries(ALWAYS_WRITTEN[kind] ?? {})) {
    if (spec[field] !== undefined && spec[field] !== null && pruned[field] === undefined) pruned[field] = structuredClone(empty);
  }
  return pruned;
}
