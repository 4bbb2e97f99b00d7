// Request bodies are checked against schemas/api/<rpc>.json before any handler runs, so handlers
// can trust the shapes; the first problem becomes a 400 invalid_argument naming the field.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Rpc } from '../api/operations.js';
import { ServiceError } from './service-error.js';

type AjvClass = typeof Ajv2020Module.default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ?? Ajv2020Module) as AjvClass;
type AddFormats = typeof addFormatsModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as AddFormats;

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

const ajv = new Ajv2020({ allErrors: false, strict: false });
addFormats(ajv);
const compiled = new Map<Rpc, ValidateFunction>();

function validatorFor(rpc: Rpc): ValidateFunction {
  let validate = compiled.get(rpc);
  if (!validate) {
    const schema = JSON.parse(readFileSync(join(apiSchemasDir(), `${rpc}.json`), 'utf8')) as object;
    validate = ajv.compile(schema);
    compiled.set(rpc, validate);
  }
  return validate;
}

/**
 * Compiles the validators of `rpcs` ahead of their first request, one per turn of the event loop
 * so that requests arriving meanwhile are not held up. Compiling on first use put ~175 ms of ajv
 * work on the first plan against a fresh `agentform server` (8 reads), and as much again on the
 * first writes. Returns a function that stops it (for close).
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
  const parts = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push(String((error.params as { missingProperty: string }).missingProperty));
  return parts.length === 0 ? '(body)' : parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'enum') return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return error.message ?? 'is invalid';
}

export function validateRequest(rpc: Rpc, body: unknown): void {
  const validate = validatorFor(rpc);
  if (validate(body)) return;
  const first = validate.errors?.[0];
  if (!first) throw new ServiceError('invalid_argument', `invalid ${rpc} request`);
  const field = fieldOf(first);
  throw new ServiceError('invalid_argument', `${field}: ${describe(first)}`, { field, rpc });
}
