// The promoted definition: the source version's definition, except the fields the target keeps.
import type { JsonObject, JsonValue } from '../model/resources.js';
import { type FieldPath, formatPath, getPath, setPath } from './kept-fields.js';

export interface KeptField {
  /** Dotted path: `model.model`, `limits.maxTurns`. */
  path: string;
  /** The target's value (null: reset to the server default). */
  value: JsonValue;
  /** What the source version has there (undefined: not set). */
  sourceValue?: JsonValue;
}

export interface PromotedDefinition {
  definition: JsonObject;
  kept: KeptField[];
}

/**
 * Source definition with each kept path set to the target's value. A kept path the target's spec
 * does not hold (e.g. the agent is not declared for the target) keeps nothing.
 */
export function mergePromoted(source: JsonObject, targetSpec: JsonObject, keptPaths: readonly FieldPath[]): PromotedDefinition {
  let definition = structuredClone(source);
  const kept: KeptField[] = [];
  for (const path of keptPaths) {
    const value = getPath(targetSpec, path);
    if (value === undefined) continue;
    const sourceValue = getPath(source, path);
    definition = setPath(definition, path, structuredClone(value));
    kept.push({ path: formatPath(path), value, ...(sourceValue !== undefined ? { sourceValue } : {}) });
  }
  return { definition, kept };
}

/** The definition as an upsert body: a null (reset to the server default) is sent as "not set". */
export function withoutNullFields(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null) continue;
    out[key] = typeof item === 'object' && !Array.isArray(item) ? withoutNullFields(item) : item;
  }
  return out;
}
