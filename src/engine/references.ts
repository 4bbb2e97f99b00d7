// Every place an agent definition names another resource. One list, read by the configuration's
// reference check, the dependency graph (through DesiredResource.references), promote and rollback,
// so a reference added here is checked and ordered everywhere at once.
import type { JsonObject, JsonValue, ResourceKind } from '../model/resources.js';
import type { PathSegment } from '../model/safety.js';

export interface DefinitionReference {
  kind: ResourceKind;
  name: string;
  /** Where the name sits in the definition. */
  segments: PathSegment[];
}

const isObject = (value: JsonValue | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function valueAt(value: JsonValue | undefined, segments: readonly PathSegment[]): JsonValue | undefined {
  let current = value;
  for (const segment of segments) {
    if (typeof segment === 'number') current = Array.isArray(current) ? current[segment] : undefined;
    else current = isObject(current) ? current[segment] : undefined;
  }
  return current;
}

/** The resources an agent definition names, in a fixed order (single fields first, then lists). */
export function agentDefinitionReferences(spec: JsonObject): DefinitionReference[] {
  const out: DefinitionReference[] = [];
  const add = (kind: ResourceKind, segments: PathSegment[]) => {
    const name = valueAt(spec, segments);
    if (typeof name === 'string') out.push({ kind, name, segments });
  };
  const each = (listPath: PathSegment[], field: PathSegment[], kind: ResourceKind, when: (item: JsonValue) => boolean = () => true) => {
    const list = valueAt(spec, listPath);
    if (Array.isArray(list)) list.forEach((item, index) => when(item) && add(kind, [...listPath, index, ...field]));
  };
  add('provider', ['model', 'provider']);
  each(['model', 'fallback', 'models'], ['provider'], 'provider');
  add('provider', ['compaction', 'model', 'provider']);
  add('connection', ['policies', 'toolCalls', 'hook', 'connection']);
  add('connection', ['sandbox', 'connectionName']);
  each(['tools'], ['name'], 'connection', (tool) => isObject(tool) && tool.type === 'connection');
  each(['subagents'], ['agent'], 'agent');
  each(['sandbox', 'image', 'secrets'], [], 'secret');
  return out;
}
