// Subagents that name another agent (and maybe a version) in a promoted definition. Version numbers
// are per environment, so a subagent pinned to the source's `researcher v3` must become the
// target's version of researcher that was promoted from source v3.
import type { JsonObject, JsonValue } from '../model/resources.js';

export interface SubagentNeed {
  /** Index in `subagents`. */
  index: number;
  agent: string;
  /** The source environment's version, when pinned. */
  version?: number;
}

function isPlainObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function subagentNeeds(definition: JsonObject): SubagentNeed[] {
  const list = definition.subagents;
  if (!Array.isArray(list)) return [];
  const out: SubagentNeed[] = [];
  list.forEach((entry, index) => {
    if (!isPlainObject(entry) || typeof entry.agent !== 'string') return;
    out.push({ index, agent: entry.agent, ...(typeof entry.version === 'number' ? { version: entry.version } : {}) });
  });
  return out;
}

/** A copy of the definition whose pinned subagents name the target's versions (by index). */
export function withSubagentVersions(definition: JsonObject, targetVersions: ReadonlyMap<number, number>): JsonObject {
  if (targetVersions.size === 0 || !Array.isArray(definition.subagents)) return definition;
  const subagents = definition.subagents.map((entry, index) => {
    const version = targetVersions.get(index);
    return version !== undefined && isPlainObject(entry) ? { ...entry, version } : entry;
  });
  return { ...definition, subagents };
}
