// Reading optional values out of a resource spec (plain JSON) without casts at every rule.
import type { JsonObject, JsonValue } from '../../model/resources.js';

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `path`, or undefined when any step is missing. */
export function valueAt(spec: JsonObject, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = spec;
  for (let step = 0; step < path.length; step++) current = isObject(current) ? current[path[step] as string] : undefined;
  return current;
}

export function objectAt(spec: JsonObject, path: readonly string[]): JsonObject | undefined {
  const value = valueAt(spec, path);
  return isObject(value) ? value : undefined;
}

export function arrayAt(spec: JsonObject, path: readonly string[]): JsonValue[] {
  const value = valueAt(spec, path);
  return Array.isArray(value) ? value : [];
}
