// What the exporter writes of a live spec: everything the server reports, so that the project
// round-trips to a server whose defaults differ (values equal to one server's defaults are real
// values on another). Left out: nulls (a null in a configuration means "left to the server"), and
// fields the configuration schema does not know (a server may report fields this version of
// agentform has no name for; writing them would fail validation) — each one named in a note. Fields
// left out are not managed by the exported project, so a plan keeps their remote value. Pure.
import type { JsonObject, JsonValue } from '../model/resources.js';

/** The part of a JSON Schema the exporter reads: which fields an object knows. */
export interface SpecSchema {
  $ref?: string;
  properties?: Record<string, SpecSchema>;
  additionalProperties?: boolean | SpecSchema;
  items?: SpecSchema;
  $defs?: Record<string, SpecSchema>;
}

/** A kind's spec schema and the document it sits in (for `#/$defs/...` references). */
export interface SchemaRef {
  root: SpecSchema;
  spec: SpecSchema;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A schema node with its `#/$defs/...` reference followed (into `root`). */
export function resolveSchemaRef(schema: SpecSchema | undefined, root: SpecSchema): SpecSchema | undefined {
  let current = schema;
  for (let depth = 0; current?.$ref !== undefined && depth < 8; depth++) {
    const match = /^#\/\$defs\/(.+)$/.exec(current.$ref);
    current = match ? root.$defs?.[match[1] as string] : undefined;
  }
  return current;
}

/** The spec as exported, and the paths of the fields left out because the schema does not know them. */
export function exportableSpec(spec: JsonObject, schema: SchemaRef | undefined): { spec: JsonObject; unknown: string[] } {
  const unknown: string[] = [];
  const visit = (value: JsonValue, node: SpecSchema | undefined, path: string): JsonValue => {
    const known = node && schema ? resolveSchemaRef(node, schema.root) : undefined;
    if (Array.isArray(value)) return value.map((item, index) => visit(item, known?.items, `${path}[${index}]`));
    if (!isObject(value)) return value;
    const out: JsonObject = {};
    for (const [key, inner] of Object.entries(value)) {
      if (inner === null || inner === undefined) continue;
      const field = path === '' ? key : `${path}.${key}`;
      const property = known?.properties?.[key];
      if (known && property === undefined && known.additionalProperties === false) {
        unknown.push(field);
        continue;
      }
      const next = property ?? (typeof known?.additionalProperties === 'object' ? known.additionalProperties : undefined);
      out[key] = visit(inner, next, field);
    }
    return out;
  };
  return { spec: visit(spec, schema?.spec, '') as JsonObject, unknown };
}

/** "model.serverRevision, sandbox.region and 3 more": a short list for a note. */
export function fieldList(paths: string[], shown = 4): string {
  if (paths.length <= shown) return paths.join(', ');
  return `${paths.slice(0, shown).join(', ')} and ${paths.length - shown} more`;
}
