// Where the configuration's JSON specs meet the API's typed objects. A spec (DesiredResource.spec)
// is plain JSON so that the engine can diff every kind alike; the API client takes typed objects.
// The conversions live here, one per direction and kind, instead of casts at every call site:
//   - API object → JSON (jsonOf): API objects are parsed JSON, so nothing is lost;
//   - JSON spec → API object (agentDefinitionOf, wireBodyOf): the spec was checked against
//     the kind's JSON Schema (schemas/*.schema.json) when the project was loaded, and the engine
//     only merges JSON of that shape into it;
//   - promotedFromOf checks its value at run time (it travels through DesiredResource.options).
import type { AgentDefinition, AgentVersionWithSlug, PromotedFrom } from './api.js';
import type { ActualResource, JsonObject, JsonValue } from './resources.js';

/** The one reinterpretation: the value's shape is guaranteed by the comment above each caller. */
function reinterpret<T>(value: unknown): T {
  return value as T;
}

/** An API object as the engine's JSON. */
export function jsonOf(value: object): JsonObject {
  return reinterpret<JsonObject>(value);
}

/** A (schema-checked) agent spec as the definition agents.upsert takes. */
export function agentDefinitionOf(spec: JsonObject): AgentDefinition {
  return reinterpret<AgentDefinition>(spec);
}

/**
 * A (schema-checked) spec as the request body type `Body` an operation takes (the operation types
 * live in src/api/, which this layer may not import: the caller names the type).
 */
export function wireBodyOf<Body extends object>(spec: JsonObject): Body {
  return reinterpret<Body>(spec);
}

/** The raw API object behind an actual agent (ActualResource.remote keeps it as read). */
export function agentVersionOf(resource: Pick<ActualResource, 'remote'>): AgentVersionWithSlug {
  return reinterpret<AgentVersionWithSlug>(resource.remote);
}

/** A `promotedFrom` record, when `value` is one. */
export function promotedFromOf(value: JsonValue | undefined): PromotedFrom | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { environmentId, agentId, version } = value;
  return typeof environmentId === 'string' && typeof agentId === 'string' && typeof version === 'number' ? { environmentId, agentId, version } : undefined;
}
