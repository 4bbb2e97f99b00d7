// The JSON Schemas of the project files (schemas/*.schema.json) and their validators.
// The schemas are read from the package's schemas/ folder, found by walking up from this module
// (it runs from src/config under vitest and from dist/src/config when built).
//
// The validators come from one of two places, with the same ajv options and keywords:
// - precompiled: `npm run build` writes ajv standalone code for them next to this module
//   (src/build/schemas-precompile.ts). It is used when it was generated from the schema files read now;
//   loading it is much quicker than loading ajv's compiler and compiling.
// - compiled here, on first use, when there is no up-to-date precompiled file (always under
//   vitest, which runs the TypeScript sources).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CodeKeywordDefinition, ErrorObject, Options } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { requireForValidators } from './validator-runtime.js';
import { installedVersion } from '../util/package-version.js';

export const SCHEMA_FILES = {
  root: 'agentform.schema.json',
  Agent: 'agent.schema.json',
  Provider: 'provider.schema.json',
  Connection: 'connection.schema.json',
  Secret: 'secret.schema.json',
  ApiKey: 'apikey.schema.json',
  AgentTemplate: 'agenttemplate.schema.json',
  lock: 'agentform.lock.schema.json',
  test: 'agentform.test.schema.json',
} as const;
export type SchemaName = keyof typeof SCHEMA_FILES;
export const SCHEMA_NAMES = Object.keys(SCHEMA_FILES) as SchemaName[];
export const DOCUMENT_KINDS = ['Agent', 'Provider', 'Connection', 'Secret', 'ApiKey'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
/** Not a resource kind: a template's documents are read beside the resources and resolved into agents (templates.ts). */
export const TEMPLATE_KIND = 'AgentTemplate';

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
  agenttemplate: 'AgentTemplate',
  template: 'AgentTemplate',
  lock: 'lock',
  test: 'test',
  tests: 'test',
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

const schemaTexts = new Map<SchemaName, string>();
export function schemaText(name: SchemaName): string {
  let text = schemaTexts.get(name);
  if (text === undefined) {
    text = readFileSync(join(schemasDir(), SCHEMA_FILES[name]), 'utf8');
    schemaTexts.set(name, text);
  }
  return text;
}

export type SchemaObject = Record<string, unknown>;

/**
 * Each kind's spec schema with the document it sits in (for `#/$defs/...` references), keyed by
 * resource kind; `environment` is the root file's environment settings. The exporter uses them to
 * leave out fields the configuration does not know.
 */
export function specSchemas(): Record<'agent' | 'provider' | 'connection' | 'apiKey' | 'environment', { root: SchemaObject; spec: SchemaObject }> {
  const read = (name: SchemaName) =>
    JSON.parse(schemaText(name)) as SchemaObject & { $defs: Record<string, SchemaObject & { properties?: Record<string, SchemaObject> }> };
  const document = (name: SchemaName) => {
    const root = read(name);
    return { root, spec: root.$defs.spec as SchemaObject };
  };
  const root = read('root');
  return {
    agent: document('Agent'),
    provider: document('Provider'),
    connection: document('Connection'),
    apiKey: document('ApiKey'),
    environment: { root, spec: root.$defs.environment?.properties?.settings as SchemaObject },
  };
}
/** A validator, compiled here or precompiled: ajv's calling convention, errors left on the function. */
export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

export interface Compiled {
  documents: Record<SchemaName, Validator>;
  /** Validators of each kind's `$defs/spec` alone, for specs after overlays are merged. */
  specs: Record<DocumentKind, Validator>;
}

// ---------------------------------------------------------------------------------------------
// The one definition of how the schemas are compiled, shared with the precompiler.

/**
 * optimize: false — ajv's code optimisation passes cost more at start than they save on a few
 * thousand documents. The precompiled validators use the
 * same options so that both produce the same code, hence the same errors.
 */
export const AJV_OPTIONS = {
  allErrors: true,
  strict: true,
  strictTypes: false,
  verbose: true,
  code: { optimize: false },
} as const satisfies Options;

// ajv is CommonJS; it is required (synchronously, since validators() is synchronous) only when
// something is compiled, so a run with the precompiled validators never loads its compiler.
const requireFromHere = createRequire(import.meta.url);
const validatorRequire = requireForValidators(requireFromHere);
type AjvModule = typeof import('ajv/dist/2020.js');
function ajvModule(): AjvModule {
  return requireFromHere('ajv/dist/2020.js') as AjvModule;
}

/** Whether x-suggest reports a value: a string, not interpolated, that is not one of the known values. */
export function isUnnamedValue(data: unknown, known: readonly string[]): boolean {
  return typeof data === 'string' && !data.includes('${') && !known.includes(data);
}

/**
 * Functions the generated validators call. Precompiled code cannot hold a reference to a function
 * of this module, so it names it as `helpers.<name>` and the loader passes this object as `helpers`.
 */
export const VALIDATOR_HELPERS = { isUnnamedValue } as const;

/**
 * `x-suggest: true` marks an open enumeration (the API names some values, not all, in `examples`):
 * any other value fails it, and schema-errors.ts judges how: a likely typo of a known value is an
 * error, another value a warning (it may well be valid). A `code` keyword rather than a `validate`
 * function, because standalone code can only call a function it can name.
 */
const suggestKeyword: CodeKeywordDefinition = {
  keyword: 'x-suggest',
  schemaType: 'boolean',
  code(cxt) {
    const { _, stringify } = ajvModule();
    const known = (cxt.parentSchema.examples ?? []) as string[];
    const check = cxt.gen.scopeValue('func', { ref: isUnnamedValue, code: _`helpers.isUnnamedValue` });
    const knownValues = cxt.gen.scopeValue('obj', { ref: known, code: stringify(known) });
    cxt.fail(_`${check}(${cxt.data}, ${knownValues})`);
  },
};

/**
 * `patternErrorMessage` (the keyword VS Code's JSON/YAML language servers read) says in a sentence
 * what a `pattern` requires. ajv only carries it, for the CLI's messages (schema-errors.ts), so an
 * editor and `agentform validate` explain a mismatch with the same words.
 */
const patternMessageKeyword = { keyword: 'patternErrorMessage', schemaType: 'string' } as const;

/**
 * `x-changes-safety` beside `x-suggest` says, in a sentence, why another value than the known ones
 * changes safety (an environment's `kind`): there an abbreviation of a known value is a near miss
 * too, an error rather than a warning (schema-errors.ts). ajv only carries it.
 */
const changesSafetyKeyword = { keyword: 'x-changes-safety', schemaType: 'string' } as const;

/**
 * An ajv instance with every schema added (compiled on getSchema), and each schema's `$id` to look
 * its validator up by. `source` keeps the generated code, for standalone output.
 */
export function createAjv(options: { source?: boolean } = {}): { ajv: Ajv2020; ids: Record<SchemaName, string> } {
  const { Ajv2020 } = ajvModule();
  const ajv = new Ajv2020({ ...AJV_OPTIONS, code: { ...AJV_OPTIONS.code, source: options.source ?? false } });
  ajv.addKeyword(suggestKeyword);
  ajv.addKeyword(patternMessageKeyword);
  ajv.addKeyword(changesSafetyKeyword);
  const ids = {} as Record<SchemaName, string>;
  for (const name of SCHEMA_NAMES) {
    const schema = JSON.parse(schemaText(name)) as SchemaObject;
    ids[name] = String(schema.$id);
    ajv.addSchema(schema);
  }
  return { ajv, ids };
}

export function specSchemaId(documentId: string): string {
  return `${documentId}#/$defs/spec`;
}

// ---------------------------------------------------------------------------------------------
// Precompiled validators.

/** Written next to this module by `npm run build` (src/build/write-precompiled-schemas.ts). */
export const PRECOMPILED_FILE = 'schemas.precompiled.cjs';
/**
 * Where validators() looks for the precompiled file: beside the file this code runs from, which is
 * dist/src/config/schemas.js after tsc and a chunk of dist/cli/ in the bundle. The build writes one
 * for each, from that same code, so the source hash (which covers the compiler set-up's text) matches.
 */
export function precompiledValidatorsPath(): string {
  return join(dirname(fileURLToPath(import.meta.url)), PRECOMPILED_FILE);
}
/** The precompiled spec validators' file, beside the documents' one at `documentsPath`. */
export function precompiledSpecsPath(documentsPath: string): string {
  return documentsPath.replace(/\.cjs$/, '.specs.cjs');
}
export type PrecompiledPart = 'documents' | 'specs';
/** Bumped whenever the shape of the generated file changes. */
const PRECOMPILED_FORMAT = 2;

/** Names of the precompiled validators: the documents by schema name, the specs as `<kind>.spec`. */
export function precompiledName(name: SchemaName, part: 'document' | 'spec'): string {
  return part === 'document' ? name : `${name}.spec`;
}

let sources: string | undefined;
/**
 * What the validators are made from, as one text: the schema texts, the ajv options and version,
 * the code that sets up the compiler, the precompiled files' format. The precompiled validators are
 * used only when this matches now (the schemas may have been edited since the build, or the code
 * rebuilt by tsc alone); the parse cache compares it too. The files hold the text itself, compared
 * as a string: hashing it would load node:crypto, a cost to every run that checks a document.
 */
export function schemaSources(): string {
  if (sources === undefined) {
    const ajvVersion = installedVersion('ajv', import.meta.url);
    const compilerSetup = [createAjv, suggestKeyword.code].map(String);
    sources = JSON.stringify({ format: PRECOMPILED_FORMAT, ajv: ajvVersion, options: AJV_OPTIONS, compilerSetup });
    for (const name of SCHEMA_NAMES) sources += `\0${name}\0${schemaText(name)}`;
  }
  return sources;
}

/** The CommonJS module written by src/build/schemas-precompile.ts. */
interface PrecompiledModule {
  sources: string;
  defineValidators(exports: Record<string, Validator>, require: NodeJS.Require, helpers: typeof VALIDATOR_HELPERS): void;
}

function isPrecompiledModule(value: unknown): value is PrecompiledModule {
  const candidate = value as Partial<PrecompiledModule> | null;
  return typeof candidate?.sources === 'string' && typeof candidate.defineValidators === 'function';
}

/**
 * The validators of the precompiled files (`path`, and the spec validators' file beside it), or
 * undefined when there is none or it was generated from other schemas (edited since the build) or
 * another ajv. CommonJS files, so they load synchronously; the specs' only on first use, and if
 * that file is missing or stale its validators are compiled here instead.
 */
export function loadPrecompiledValidators(path: string): Compiled | undefined {
  const documentsFile = loadPrecompiledPart(path);
  return documentsFile ? precompiledValidators(path, documentsFile) : undefined;
}

interface PrecompiledFile {
  validator(name: string): Validator;
}

function loadPrecompiledPart(path: string): PrecompiledFile | undefined {
  if (!existsSync(path)) return undefined;
  let loaded: unknown;
  try {
    // Through require: in the bundle, the start-up's code cache takes it like a chunk (src/startup).
    loaded = createRequire(path)(path);
  } catch {
    // A broken file (cut short, edited by hand) only costs compiling the schemas.
    return undefined;
  }
  if (!isPrecompiledModule(loaded) || loaded.sources !== schemaSources()) return undefined;
  const exported: Record<string, Validator> = {};
  // ajv's runtime helpers (require("ajv/dist/runtime/…")) come from this module (validator-runtime.ts),
  // not from the generated file's folder, so the file works wherever it is written (the tests write
  // it to a temp dir).
  loaded.defineValidators(exported, validatorRequire, VALIDATOR_HELPERS);
  const validator = (name: string): Validator => {
    const found = exported[name];
    if (typeof found !== 'function') throw new Error(`${path} has no validator "${name}"; rebuild with npm run build`);
    return found;
  };
  return { validator };
}

/**
 * A record whose validators are taken on first use, each from `load()` (once, for them all) or,
 * when that gives none (a missing, broken or stale file), from `compiled()`.
 */
function lazyValidators<Name extends string>(
  names: readonly Name[],
  load: () => PrecompiledFile | undefined,
  fromFile: (file: PrecompiledFile, name: Name) => Validator,
  compiled: (name: Name) => Validator,
): Record<Name, Validator> {
  let file: PrecompiledFile | null | undefined;
  const record = {} as Record<Name, Validator>;
  for (const name of names) {
    Object.defineProperty(record, name, {
      enumerable: true,
      get(): Validator {
        file ??= load() ?? null;
        const validator = file ? fromFile(file, name) : compiled(name);
        Object.defineProperty(record, name, { value: validator, enumerable: true });
        return validator;
      },
      configurable: true,
    });
  }
  return record;
}

/**
 * The precompiled validators, each part loaded on first use: a run that checks only merged specs
 * (templates, overlays) over a warm parse cache never loads the documents' file, the larger one.
 */
export function precompiledValidators(path: string, documentsFile?: PrecompiledFile): Compiled {
  let compiledHere: Compiled | undefined;
  const compiled = (): Compiled => (compiledHere ??= compileValidators());
  return {
    documents: lazyValidators(
      SCHEMA_NAMES,
      () => documentsFile ?? loadPrecompiledPart(path),
      (file, name) => file.validator(precompiledName(name, 'document')),
      (name) => compiled().documents[name],
    ),
    specs: lazyValidators(
      DOCUMENT_KINDS,
      () => loadPrecompiledPart(precompiledSpecsPath(path)),
      (file, kind) => file.validator(precompiledName(kind, 'spec')),
      (kind) => compiled().specs[kind],
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// Compiled at run time.

export function compileValidators(): Compiled {
  const { ajv, ids } = createAjv();
  const documents = {} as Record<SchemaName, Validator>;
  for (const name of SCHEMA_NAMES) documents[name] = ajv.getSchema(ids[name]) as Validator;
  // Spec validators are needed only for overlays; each is compiled on first use.
  const specCache: Partial<Record<DocumentKind, Validator>> = {};
  const specs = new Proxy({} as Record<DocumentKind, Validator>, {
    get(_target, kind: DocumentKind) {
      specCache[kind] ??= ajv.getSchema(specSchemaId(ids[kind])) as Validator;
      return specCache[kind];
    },
  });
  return { documents, specs };
}

let validatorsInUse: Compiled | undefined;

export function validators(): Compiled {
  validatorsInUse ??= precompiledValidators(precompiledValidatorsPath());
  return validatorsInUse;
}
