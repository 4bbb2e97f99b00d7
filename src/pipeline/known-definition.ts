// A version read from a server, as promote and rollback write it back: the fields this agentform's
// configuration schema knows. A server may report fields of its own anywhere in a definition (a
// revision, when it last resolved the model); copied into a write they would send back a stale
// value of the server's own field, or be refused as unknown. The fields left out are named once.
import { specSchemas } from '../config/schemas.js';
import { exportableSpec, type SchemaRef } from '../export/prune.js';
import type { AgentVersionWithSlug } from '../model/api.js';
import { jsonOf } from '../model/specs.js';

let agentSchema: SchemaRef | undefined;

/** The version with its definition pruned to known fields, and the paths left out. */
export function withKnownDefinition(version: AgentVersionWithSlug): { version: AgentVersionWithSlug; unknown: string[] } {
  agentSchema ??= specSchemas().agent as SchemaRef;
  const { spec, unknown } = exportableSpec(jsonOf(version.definition), agentSchema);
  return { version: { ...version, definition: spec as unknown as AgentVersionWithSlug['definition'] }, unknown };
}

/** One line for stderr naming the left-out fields (a few, then a count), or undefined when none. */
export function unknownFieldsNotice(what: string, unknown: readonly string[]): string | undefined {
  if (unknown.length === 0) return undefined;
  const shown = unknown.slice(0, 3).join(', ');
  const more = unknown.length > 3 ? ` and ${unknown.length - 3} more` : '';
  return `notice: ${what}: not copied, fields agentform does not know (the server's own): ${shown}${more}`;
}
