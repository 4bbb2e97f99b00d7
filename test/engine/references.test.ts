// agentDefinitionReferences is the one list of the resources an agent definition names: it must
// hold every field the agent schema describes as the name of a resource of the project, so that a
// field added to the schema and not to the list fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentDefinitionReferences } from '../../src/engine/references.js';
import { resolveSchemaRef, type SpecSchema } from '../../src/export/prune.js';
import type { JsonObject, JsonValue, ResourceKind } from '../../src/model/resources.js';
import type { PathSegment } from '../../src/model/safety.js';

interface SchemaNode {
  description?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}

const SCHEMA = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'schemas', 'agent.schema.json'), 'utf8')) as SpecSchema & {
  $defs: { spec: SpecSchema };
};
const KINDS: Record<string, ResourceKind> = { Provider: 'provider', Connection: 'connection', Agent: 'agent', Secret: 'secret' };

interface NamingField {
  kind: ResourceKind;
  segments: PathSegment[];
  /** "for type connection, the name of a Connection resource": the sibling `type` it needs. */
  whenType?: string;
}

/** Every schema field whose description says it is the name of a resource of the project. */
function namingFields(node: SchemaNode, segments: PathSegment[] = []): NamingField[] {
  const description = node.description ?? '';
  const names = /name of an? (Provider|Connection|Agent|Secret) resource/i.exec(description);
  const type = /for type (\w+)/.exec(description)?.[1];
  const own: NamingField[] = names ? [{ kind: KINDS[names[1] as string] as ResourceKind, segments, ...(type !== undefined ? { whenType: type } : {}) }] : [];
  const children = Object.entries(node.properties ?? {}).flatMap(([key, child]) => namingFields(child, [...segments, key]));
  return [...own, ...children, ...(node.items ? namingFields(node.items, [...segments, 0]) : [])];
}

/** A definition holding only `value` at `segments` (lists of one item), and `type` beside it when asked. */
function specWith(field: NamingField, value: string): JsonObject {
  const build = (rest: PathSegment[]): JsonValue => {
    if (rest.length === 0) return value;
    const [head, ...tail] = rest;
    if (typeof head === 'number') return [build(tail)];
    const object: JsonObject = { [head as string]: build(tail) };
    if (tail.length === 0 && field.whenType !== undefined) object.type = field.whenType;
    return object;
  };
  return build(field.segments) as JsonObject;
}

describe('agentDefinitionReferences', () => {
  const fields = namingFields(resolveSchemaRef(SCHEMA.$defs.spec, SCHEMA) as SchemaNode);

  it('finds the naming fields of the schema (the walk itself works)', () => {
    expect(fields.map((field) => `${field.kind} ${field.segments.join('.')}`).sort()).toEqual([
      'agent subagents.0.agent',
      'connection policies.toolCalls.hook.connection',
      'connection sandbox.connectionName',
      'connection tools.0.name',
      'provider compaction.model.provider',
      'provider model.fallback.models.0.provider',
      'provider model.provider',
      'secret sandbox.image.secrets.0',
    ]);
  });

  it.each(fields.map((field) => [field.segments.join('.'), field] as const))('lists %s', (_path, field) => {
    expect(agentDefinitionReferences(specWith(field, 'target'))).toEqual([{ kind: field.kind, name: 'target', segments: field.segments }]);
  });

  it('lists a connection tool, not a builtin one', () => {
    const spec = {
      tools: [
        { type: 'builtin', name: 'current_time' },
        { type: 'connection', name: 'github' },
      ],
    };
    expect(agentDefinitionReferences(spec)).toEqual([{ kind: 'connection', name: 'github', segments: ['tools', 1, 'name'] }]);
  });
});
