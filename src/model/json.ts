// Plain-JSON helpers shared by the configuration layer and the engine (neither may import the other).
import type { JsonObject, JsonValue } from './resources.js';

/**
 * The value with every `null` inside objects dropped: a null field means "left to the server".
 *
 * Only the objects and arrays on the way to a dropped null are copied; every part without one is
 * returned as it is, so the result shares those parts with `value` and must be treated as
 * read-only (as every caller does: validation, request bodies, merged bodies). Why: an apply calls
 * this for each resource it writes, and copying every spec made much garbage in a large apply.
 */
export function withoutNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) {
    let copy: JsonValue[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = value[index] as JsonValue;
      const kept = withoutNulls(item);
      if (copy === undefined && kept !== item) copy = value.slice(0, index);
      copy?.push(kept);
    }
    return copy ?? value;
  }
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value);
    let copy: JsonObject | undefined;
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      const item = value[key] as JsonValue;
      if (item === null) {
        copy ??= objectOfKeys(value, keys, index);
        continue;
      }
      const kept = withoutNulls(item);
      if (copy === undefined && kept !== item) copy = objectOfKeys(value, keys, index);
      if (copy !== undefined) copy[key] = kept;
    }
    return copy ?? value;
  }
  return value;
}

/** A new object with the first `count` of `keys` of `value`, in their order. */
function objectOfKeys(value: JsonObject, keys: readonly string[], count: number): JsonObject {
  const copy: JsonObject = {};
  for (let index = 0; index < count; index++) copy[keys[index] as string] = value[keys[index] as string] as JsonValue;
  return copy;
}

/** Whether withoutNulls would drop anything: a `null` field in some object of the value. */
export function hasNullField(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some(hasNullField);
  if (typeof value === 'object' && value !== null) {
    for (const key in value) {
      const item = value[key] as JsonValue;
      if (item === null || hasNullField(item)) return true;
    }
  }
  return false;
}
