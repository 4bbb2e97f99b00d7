// What the rules judge when promote or rollback writes a version read from a server (docs/policy.md,
// "One verdict"). A version read back is complete: what its configuration left to the server is
// there too, filled in by that server. When the version is the configuration as applied (no field
// the configuration sets differs), the rules judge the configuration, so what it left to the
// server stays unknown, as in check, plan and apply: a server that happened to fill a safe value
// does not let promote pass where check refuses. Any other version (older, changed by hand, or of
// an agent the configuration does not declare) is judged whole, as written. Pure.
import { diffSpec } from '../engine/diff.js';
import { rulesFor } from '../engine/rules.js';
import type { JsonObject, JsonValue } from '../model/resources.js';

export interface JudgedDefinition {
  /** The definition the rules evaluate. */
  definition: JsonObject;
  /** True when the version is its configuration as applied (the rules judge the configured fields). */
  asConfigured: boolean;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields of `value` that `shape` sets (objects descended into; lists and scalars whole). */
export function restrictTo(value: JsonObject, shape: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, want] of Object.entries(shape)) {
    if (want === null || want === undefined) continue;
    const have = value[key];
    if (have === undefined) continue;
    out[key] = isObject(want) && isObject(have) ? restrictTo(have, want) : have;
  }
  return out;
}

/**
 * `written`: what will be written. `version`: the version as the server holds it (promote: the
 * source's). `configured`: that environment's configuration of the agent (undefined: not declared),
 * with whatever the write sets on top of it (promote: the target's kept fields).
 */
export function judgedDefinition(
  written: JsonObject,
  version: JsonObject,
  configured: JsonObject | undefined,
  shape: JsonObject | undefined = configured,
): JudgedDefinition {
  if (!configured || !shape || diffSpec(configured, version, rulesFor('agent')).length > 0) return { definition: written, asConfigured: false };
  return { definition: restrictTo(written, shape), asConfigured: true };
}
