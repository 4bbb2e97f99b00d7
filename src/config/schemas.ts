// The JSON Schemas of the project files (schemas/*.schema.json), compiled once, lazily, with ajv.
// The schemas are read from the package's schemas/ folder, found by walking up from this module
// (it runs from src/config under vitest and from dist/src/config when built).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closest } from './suggest.js';
import Ajv2020Module, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

export const SCHEMA_FILES = {
  root: 'agentform.schema.json',
  Agent: 'agent.schema.json',
  Provider: 'provider.schema.json',
  Connection: 'connection.schema.json',
  Secret: 'secret.schema.json',
  ApiKey: 'apikey.schema.json',
} as const;
export type SchemaName = keyof typeof SCHEMA_FILES;
export const DOCUMENT_KINDS = ['Agent', 'Provider', 'Connection', 'Secret', 'ApiKey'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** Names `agentform schema <kind>` accepts, lower case. */
export const SCHEMA_ALIASES: Record<string, SchemaName> = {
  agentform: 'root',
  root: 'root',
  project: 'root',
  agent: 'Agent',
  provider: 'Provider',
  connection: 'Connection',
  secret: 'Secret',
  apikey: 'ApiKey',
};

let schemasDirectory: string | undefined;
export function schemasDir(): string {
  if (schemasDirectory) return schemasDirectory;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'schemas');
    if (existsSync(join(candidate, SCHEMA_FILES.Agent))) return (schemasDirectory = candidate);
    dir = dirname(dir);
  }
  throw new Error('cannot find the schemas/ folder of agentform');
}

export function schemaText(name: SchemaName): string {
  return readFileSync(join(schemasDir(), SCHEMA_FILES[name]), 'utf8');
}

export type SchemaObject = Record<string, unknown>;
export type Validator = ValidateFunction & { errors?: ErrorObject[] | null };

interface Compiled {
  documents: Record<SchemaName, Validator>;
  /** Validators of each kind's `$defs/spec` alone, for specs after overlays are merged. */
  specs: Record<DocumentKind, Validator>;
}

let compiled: Compiled | undefined;

// ajv's CJS default export under NodeNext: the class is either the module or its `default`.
type AjvClass = typeof Ajv2020Module.default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ?? Ajv2020Module) as AjvClass;

export function validators(): Compiled {
  if (compiled) return compiled;
  // optimize: false — ajv's code optimisation passes cost more at start (measured: ~200 ms → ~55 ms
  // for all schemas) than they save on a few thousand documents.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, verbose: true, code: { optimize: false } });
  // An open enumeration (the API names some values, not all): a value close to a known one is
  // probably a typo. Reported as a warning, since an unknown value may well be valid.
  ajv.addKeyword({
    keyword: 'x-suggest',
    schemaType: 'boolean',
    errors: true,
    validate: (_enabled: boolean, data: unknown, parentSchema?: SchemaObject) => {
      if (typeof data !== 'string' || data.includes('${')) return true;
      const known = (parentSchema?.examples ?? []) as string[];
      return known.includes(data) || closest(data, known) === undefined;
    },
  });
  const documents = {} as Record<SchemaName, Validator>;
  const ids = {} as Record<SchemaName, string>;
  for (const name of Object.keys(SCHEMA_FILES) as SchemaName[]) {
    const schema = JSON.parse(schemaText(name)) as SchemaObject;
    ids[name] = String(schema.$id);
    documents[name] = ajv.compile(schema) as Validator;
  }
  // Spec validators are needed only for overlays; each is compiled on first use.
  const specCache: Partial<Record<DocumentKind, Validator>> = {};
  const specs = new Proxy({} as Record<DocumentKind, Validator>, {
    get(_target, kind: DocumentKind) {
      specCache[kind] ??= ajv.getSchema(`${ids[kind]}#/$defs/spec`) as Validator;
      return specCache[kind];
    },
  });
  compiled = { documents, specs };
  return compiled;
}
