// Request bodies are checked against schemas/api/<rpc>.json before any handler runs, so handlers
// can trust the shapes; the first problem becomes a 400 invalid_argument naming the field.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Rpc } from '../api/operations.js';
import { ServiceError } from './service-error.js';
import { refuseControlCharactersInNames } from './plain-names.js';
import { asciiSource } from '../util/ascii-source.js';
import { installedVersion } from '../util/package-version.js';

type AjvClass = typeof import('ajv/dist/2020.js').default;
type AddFormats = typeof import('ajv-formats').default;

/** schemas/api, found by walking up from this module (works from src/ and from dist/src/). */
export function apiSchemasDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'schemas', 'api');
    if (existsSync(join(candidate, 'agents.upsert.json'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error('cannot find schemas/api of agentform');
}

const requireFromHere = createRequire(import.meta.url);

/**
 * ajv comes from the package (require), not from the bundle: ajv's standalone generator is
 * required from the package too, and it recognises only its own copy's code objects (with a
 * bundled ajv it wrote `{"_items":…}` for every one of them, a file that did not even parse, so the
 * bundled server compiled every validator at run time). It also keeps ajv's compiler out of a
 * server start that finds the precompiled file.
 */
function newAjv(source: boolean): InstanceType<AjvClass> {
  const Ajv2020 = requireFromHere('ajv/dist/2020.js') as AjvClass;
  const addFormats = requireFromHere('ajv-formats') as AddFormats;
  const instance = new Ajv2020({ allErrors: false, strict: false, code: { source } });
  addFormats(instance);
  return instance;
}

let ajv: InstanceType<AjvClass> | undefined;
const compiled = new Map<Rpc, ValidateFunction>();

function validatorFor(rpc: Rpc): ValidateFunction {
  let validate = compiled.get(rpc) ?? precompiledValidators()?.[exportName(rpc)];
  if (!validate) {
    const schema = JSON.parse(readFileSync(join(apiSchemasDir(), `${rpc}.json`), 'utf8')) as object;
    ajv ??= newAjv(false);
    validate = ajv.compile(schema);
  }
  compiled.set(rpc, validate);
  return validate;
}

// ---------------------------------------------------------------------------------------------
// Precompiled at build time: compiling the request schemas with ajv costs a fresh server much
// CPU, which on first use held up the first requests and in the background competed with the first
// client. `npm run build` writes ajv's standalone code for all of them next to this module
// (src/build/write-precompiled-schemas.ts); it is used only when made from the same schemas, ajv
// and options.

/** Written next to this module by `npm run build`. */
export const API_PRECOMPILED_FILE = 'api-validators.precompiled.cjs';
/** Beside the file this code runs from (dist/src/server/ after tsc, dist/cli/ in the bundle). */
export function apiPrecompiledPath(): string {
  return join(dirname(fileURLToPath(import.meta.url)), API_PRECOMPILED_FILE);
}
const API_PRECOMPILED_FORMAT = 1;

/** The schema files' RPC names, sorted: what the precompiled file holds. */
function apiSchemaRpcs(): string[] {
  return readdirSync(apiSchemasDir())
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

/** `connections.grants.list` → `connections_grants_list`: a plain property name in the file. */
function exportName(rpc: string): string {
  return rpc.replace(/[^A-Za-z0-9]/g, '_');
}

/** What the precompiled file is made from: schema texts, ajv's version, its options. */
export function apiSchemaSourceHash(): string {
  const hash = createHash('sha256');
  const ajvVersion = installedVersion('ajv', import.meta.url);
  hash.update(JSON.stringify({ format: API_PRECOMPILED_FORMAT, ajv: ajvVersion, setup: String(newAjv) }));
  for (const rpc of apiSchemaRpcs()) hash.update(`\0${rpc}\0${readFileSync(join(apiSchemasDir(), `${rpc}.json`), 'utf8')}`);
  return hash.digest('hex');
}

/** The text of the CommonJS module precompiledValidators() loads (ajv standalone code). */
export function apiValidatorsCode(): string {
  const { default: standaloneCode } = requireFromHere('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js');
  const instance = newAjv(true);
  const exported: Record<string, string> = {};
  for (const rpc of apiSchemaRpcs()) {
    const name = exportName(rpc);
    if (exported[name] !== undefined) throw new Error(`two request schemas export as ${name}`);
    instance.addSchema(JSON.parse(readFileSync(join(apiSchemasDir(), `${rpc}.json`), 'utf8')) as object, rpc);
    exported[name] = rpc;
  }
  return asciiSource(
    [
      '// Generated by src/server/validate.ts from schemas/api/*.json at build time. Do not edit.',
      '"use strict";',
      `exports.sourceHash = ${JSON.stringify(apiSchemaSourceHash())};`,
      'exports.defineValidators = function defineValidators(exports, require) {',
      standaloneCode(instance, exported),
      '};',
      '',
    ].join('\n'),
  );
}

interface PrecompiledModule {
  sourceHash: string;
  defineValidators(exports: Record<string, ValidateFunction>, require: NodeJS.Require): void;
}

/** The validators of a precompiled file; undefined when there is none, it is stale or broken. */
export function loadApiPrecompiled(path: string): Record<string, ValidateFunction> | undefined {
  try {
    if (!existsSync(path)) return undefined;
    const loaded = requireFromHere(path) as Partial<PrecompiledModule>;
    if (typeof loaded.defineValidators !== 'function' || loaded.sourceHash !== apiSchemaSourceHash()) return undefined;
    const exported: Record<string, ValidateFunction> = {};
    // ajv's runtime helpers and ajv-formats resolve from this module, wherever the file is.
    loaded.defineValidators(exported, requireFromHere);
    return exported;
  } catch {
    // A broken file only costs compiling at run time.
    return undefined;
  }
}

let precompiled: Record<string, ValidateFunction> | null | undefined;

/** The build's precompiled validators (loaded once), or null. */
function precompiledValidators(): Record<string, ValidateFunction> | null {
  precompiled ??= loadApiPrecompiled(apiPrecompiledPath()) ?? null;
  return precompiled;
}

/**
 * Compiles the validators of `rpcs` ahead of their first request, one per turn of the event loop
 * so that requests arriving meanwhile are not held up, rather than on the first plan and the first
 * writes against a fresh `agentform server`. Returns a function that stops it (for close).
 */
export function warmValidators(rpcs: readonly Rpc[]): () => void {
  let next = 0;
  let timer: NodeJS.Immediate | undefined;
  const step = () => {
    const rpc = rpcs[next++];
    if (rpc === undefined) return;
    try {
      validatorFor(rpc);
    } catch {
      // A schema that cannot be compiled fails its own requests, as before.
    }
    timer = setImmediate(step);
    timer.unref();
  };
  timer = setImmediate(step);
  timer.unref();
  return () => {
    if (timer) clearImmediate(timer);
    next = rpcs.length;
  };
}

/** `/definition/model/provider` → `definition.model.provider`; a missing property is named too. */
export function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push(String((error.params as { missingProperty: string }).missingProperty));
  return parts.length === 0 ? '(body)' : parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'enum')
    return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return error.message ?? 'is invalid';
}

export function validateRequest(rpc: Rpc, body: unknown): void {
  const validate = validatorFor(rpc);
  if (validate(body)) {
    refuseControlCharactersInNames(rpc, body);
    return;
  }
  const first = validate.errors?.[0];
  if (!first) throw new ServiceError('invalid_argument', `invalid ${rpc} request`);
  const field = fieldOf(first);
  throw new ServiceError('invalid_argument', `${field}: ${describe(first)}`, { field, rpc });
}
