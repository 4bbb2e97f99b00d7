// Plain-JSON helpers shared by the configuration layer and the engine (neither may import the other).
import type { JsonObject, JsonValue } from './resources.js';

/** The value with every `null` inside objects dropped: a null field means "left to the server". */
export function withoutNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value === 'object' && value !== null) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) if (item !== null) out[key] = withoutNulls(item);
    return out;
  }
  return value;
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
