// Overlays: objects merge deeply, arrays and scalars replace, and null replaces too (it means
// "left to the server", see src/engine/diff.ts, and is kept in the desired spec).
import type { JsonObject } from '../model/resources.js';

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mergeOverlay(base: JsonObject, overlay: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeOverlay(current, value) : value;
  }
  return out;
}
