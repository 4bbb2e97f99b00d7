// The whole-value list in src/engine/rules.ts must name every map keyed by user data in the specs
// of schemas/: an object with additionalProperties and no properties of its own.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rulesFor } from '../../src/engine/rules.js';
import { resolveSchemaRef, type SpecSchema } from '../../src/export/prune.js';
import type { ResourceKind } from '../../src/model/resources.js';

type Schema = { type?: unknown; properties?: Record<string, Schema>; additionalProperties?: unknown; items?: Schema };

function userKeyedMaps(schema: Schema, path: string, out: string[]): string[] {
  if (schema.properties === undefined && typeof schema.additionalProperties === 'object') out.push(path);
  for (const [key, inner] of Object.entries(schema.properties ?? {})) userKeyedMaps(inner, path === '' ? key : `${path}.${key}`, out);
  if (schema.items) userKeyedMaps(schema.items, `${path}[]`, out);
  return out;
}

const FILES: Array<[ResourceKind, string]> = [
  ['agent', 'agent'],
  ['connection', 'connection'],
  ['provider', 'provider'],
  ['apiKey', 'apikey'],
];

describe('rules and schemas', () => {
  it.each(FILES)('%s: every map keyed by user data is a whole value', (kind, file) => {
    const schema = JSON.parse(readFileSync(new URL(`../../schemas/${file}.schema.json`, import.meta.url), 'utf8')) as SpecSchema & {
      $defs: { spec: SpecSchema };
    };
    // The spec may be a reference to its fields (the agent's: schemas/agent.schema.json).
    const maps = userKeyedMaps(resolveSchemaRef(schema.$defs.spec, schema) as Schema, '', []);
    expect([...(rulesFor(kind).wholeValues ?? [])].sort()).toEqual(maps.sort());
  });
});
