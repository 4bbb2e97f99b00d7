// ajv errors → located problems with plain messages and "did you mean" suggestions.
import type { ErrorObject } from 'ajv';
import type { SourceLocation } from '../errors.js';
import type { PathSegment, ProblemList } from './problems.js';
import type { Validator } from './schemas.js';
import { abbreviationOf, didYouMean, likelyTypoOf } from './suggest.js';

export type Locator = (path: readonly PathSegment[], target: 'key' | 'value') => SourceLocation;

/**
 * Paths whose values the write-only check (writeOnlyValue in interpolation-context.ts, and the
 * root token check) judges with a better message, which never repeats the value.
 */
export function isWriteOnlyPath(path: readonly PathSegment[], kind: string): boolean {
  const [first, second, third, fourth] = path;
  if (kind === 'root') return first === 'environments' && third === 'token';
  if (first !== 'spec') return false;
  if (kind === 'Provider') return second === 'secret' && (third === undefined || third === 'value');
  if (kind === 'Secret') return second === 'value';
  if (kind === 'Connection') {
    if (second === 'grants') return fourth === 'accessToken';
    return second === 'auth' && third !== undefined && third !== 'type' && (fourth === undefined || fourth === 'value');
  }
  return false;
}

/** The schema errors about a write-only value's own form (not, e.g., an unknown key beside it). */
const WRITE_ONLY_FORM_KEYWORDS = new Set(['type', 'pattern', 'required']);

export function pointerToPath(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'null',
};

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return 'a string';
}

/** The schema's own sentence for a pattern (`patternErrorMessage`), the one editors show too. */
function patternMessage(pattern: string, parentSchema: unknown): string {
  const sentence = (parentSchema as { patternErrorMessage?: unknown } | undefined)?.patternErrorMessage;
  if (typeof sentence === 'string') return sentence;
  return `does not have the expected form (${pattern})`;
}

interface SuggestSchema {
  examples?: string[];
  'x-changes-safety'?: string;
}

/**
 * The known value that an x-suggest error's value is a near miss of: a likely typo, and where the
 * value changes safety (`x-changes-safety`) an abbreviation too.
 */
function nearMissOf(error: ErrorObject): string | undefined {
  const schema = (error.parentSchema ?? {}) as SuggestSchema;
  const known = schema.examples ?? [];
  const value = String(error.data);
  return likelyTypoOf(value, known) ?? (schema['x-changes-safety'] !== undefined ? abbreviationOf(value, known) : undefined);
}

/** Whether a schema error is only a warning: a value of an open enumeration that is not a near miss. */
export function isWarningOnly(error: ErrorObject): boolean {
  return error.keyword === 'x-suggest' && nearMissOf(error) === undefined;
}

/** A whole document against its validator: whether it passed; what it did not is reported (reportSchemaErrors). */
export function passesSchema(validate: Validator, value: unknown, kind: string, locate: Locator, problems: ProblemList, options: ReportOptions = {}): boolean {
  const valid = validate(value);
  if (!valid) reportSchemaErrors(validate.errors ?? [], kind, [], locate, problems, options);
  return valid;
}

/** Keywords whose own error is never reported: their branches' errors say what is wrong. */
const COMBINATOR_KEYWORDS = new Set(['oneOf', 'anyOf', 'if']);

interface ReportOptions {
  skipRequiredAtSpecRoot?: boolean;
  reportedPath?: (path: readonly PathSegment[], target: 'key' | 'value') => PathSegment[];
}

/**
 * Turns the errors of one validation into problems. `basePath` is prepended to ajv's instance
 * paths (used when only a spec was validated); `kind` selects the write-only paths to skip.
 */
export function reportSchemaErrors(
  errors: readonly ErrorObject[],
  kind: string,
  basePath: readonly PathSegment[],
  locate: Locator,
  problems: ProblemList,
  options: ReportOptions = {},
): void {
  const reportedPath = options.reportedPath ?? ((path: readonly PathSegment[]) => [...path]);
  const report = (severity: 'error' | 'warning', message: string, path: readonly PathSegment[], target: 'key' | 'value') =>
    problems[severity](message, locate(path, target), reportedPath(path, target));
  for (const error of errors) {
    const path = [...basePath, ...pointerToPath(error.instancePath)];
    if (isWriteOnlyPath(path, kind) && WRITE_ONLY_FORM_KEYWORDS.has(error.keyword)) continue;
    if (error.propertyName !== undefined) continue; // reported by reportInvalidPropertyNames
    if (COMBINATOR_KEYWORDS.has(error.keyword) || error.keyword === 'propertyNames') continue;
    const params = error.params as Record<string, unknown>;
    const parentSchema = (error.parentSchema ?? {}) as Record<string, unknown>;
    switch (error.keyword) {
      case 'additionalProperties': {
        const key = String(params.additionalProperty);
        const keyPath = [...path, key];
        const known = Object.keys((parentSchema.properties ?? {}) as object);
        const where = path.length === 0 ? '' : ` in ${lastName(path)}`;
        report('error', `unknown key "${key}"${where}${didYouMean(key, known)}`, keyPath, 'key');
        break;
      }
      case 'required': {
        if (options.skipRequiredAtSpecRoot && path.length === 1 && path[0] === 'spec') break;
        const missing = String(params.missingProperty);
        const where = path.length === 0 ? 'the document' : lastName(path);
        report('error', `missing required key "${missing}" in ${where}`, path, path.length === 0 ? 'value' : 'key');
        break;
      }
      case 'type': {
        const expected = String(params.type)
          .split(',')
          .map((type) => TYPE_NAMES[type] ?? type)
          .join(' or ');
        report('error', `must be ${expected}, not ${describeValue(error.data)}`, path, 'value');
        break;
      }
      case 'enum': {
        const allowed = (params.allowedValues ?? []) as unknown[];
        const value = typeof error.data === 'string' ? error.data : '';
        report('error', `must be one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}${didYouMean(value, allowed.map(String))}`, path, 'value');
        break;
      }
      case 'const': {
        if (path.length === 1 && path[0] === 'kind') break; // the kind chose this schema; cannot differ
        report('error', `must be ${JSON.stringify(params.allowedValue)}`, path, 'value');
        break;
      }
      case 'x-suggest': {
        const { examples: known = [], 'x-changes-safety': why } = parentSchema as SuggestSchema;
        const value = String(error.data);
        const meant = nearMissOf(error);
        if (meant !== undefined)
          report('error', `"${value}" is not a known value; did you mean "${meant}"?${why !== undefined ? ` (${why})` : ''}`, path, 'value');
        else report('warning', `"${value}" is not a known value (${known.join(', ')}): it is sent as written, check that the server accepts it`, path, 'value');
        break;
      }
      case 'pattern':
        report('error', patternMessage(String(params.pattern), parentSchema), path, 'value');
        break;
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        report('error', `must be ${String(params.comparison)} ${String(params.limit)}`, path, 'value');
        break;
      case 'minLength':
        report('error', Number(params.limit) === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters long`, path, 'value');
        break;
      case 'maxLength':
        report('error', `must be at most ${String(params.limit)} characters long`, path, 'value');
        break;
      case 'minItems':
        report('error', `must have at least ${String(params.limit)} item${Number(params.limit) === 1 ? '' : 's'}`, path, 'value');
        break;
      case 'minProperties':
        report('error', `must have at least ${String(params.limit)} entr${Number(params.limit) === 1 ? 'y' : 'ies'}`, path, 'value');
        break;
      case 'uniqueItems':
        report('error', `items ${String(params.j)} and ${String(params.i)} are the same; each may appear once`, [...path, Number(params.i)], 'value');
        break;
      default:
        report('error', error.message ?? `invalid (${error.keyword})`, path, 'value');
    }
  }
  reportInvalidPropertyNames(errors, basePath, report);
}

/** propertyNames errors carry the offending key in params.propertyName; report them at the key. */
function reportInvalidPropertyNames(
  errors: readonly ErrorObject[],
  basePath: readonly PathSegment[],
  report: (severity: 'error', message: string, path: readonly PathSegment[], target: 'key') => void,
): void {
  for (const error of errors) {
    if (error.keyword !== 'propertyNames') continue;
    const key = String((error.params as Record<string, unknown>).propertyName);
    const path = [...basePath, ...pointerToPath(error.instancePath), key];
    const inner = errors.find((other) => other.keyword === 'pattern' && other.propertyName === key && other.instancePath === error.instancePath);
    const pattern = inner ? String((inner.params as Record<string, unknown>).pattern) : '';
    report('error', `invalid name "${key}": ${inner ? patternMessage(pattern, inner.parentSchema) : 'not allowed here'}`, path, 'key');
  }
}

function lastName(path: readonly PathSegment[]): string {
  for (let index = path.length - 1; index >= 0; index--) {
    if (typeof path[index] === 'string') return String(path[index]);
  }
  return 'the document';
}
