// Resolving `${…}` in the values of one document for one environment, reporting what is missing.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { SourceLocation } from '../errors.js';
import type { JsonValue, WriteOnlyValue } from '../model/resources.js';
import { hasInterpolation, InterpolationSyntaxError, parseTemplate, type Reference, singleSecretReference } from './interpolate.js';
import type { PathSegment, ProblemList } from './problems.js';
import { didYouMean } from './suggest.js';

export interface InterpolationContext {
  /** The YAML file the values come from: ${file:} paths are relative to it. */
  sourceFile: string;
  /** The file a value at `path` comes from, when it may be another one (a template's). */
  sourceFileOf?: (path: readonly PathSegment[]) => string;
  variables: Record<string, string>;
  processEnv: NodeJS.ProcessEnv;
  /** Report unset ${env:} (off when only the project's shape is being checked). */
  checkEnv: boolean;
  /**
   * Where an unset ${env:} goes when checkEnv is off, if anywhere: the problems the same build
   * would have reported with checkEnv on, so that it need not run again to find them.
   */
  deferredEnvProblems?: ProblemList;
  /**
   * Report unset ${env:} and missing ${file:} of write-only values too. Off for plan and validate,
   * which never need them (pull-request jobs have no secrets); apply's preflight reports them.
   */
  checkWriteOnlyEnv: boolean;
  /**
   * What an unset ${env:} without a default reads as, unreported, when set: a build that compares
   * with another environment marks such values unknown rather than empty (UNSET_ENV).
   */
  unsetEnv?: string;
  locate: (path: readonly PathSegment[]) => SourceLocation;
  /** The path to report for a path of the interpolated value (e.g. with `spec.` in front). */
  reportedPath: (path: readonly PathSegment[]) => PathSegment[];
  problems: ProblemList;
  /** File contents by absolute path (null: unreadable), shared by a whole run. */
  fileCache: Map<string, string | null>;
}

function readCached(path: string, cache: Map<string, string | null>): string | null {
  if (cache.has(path)) return cache.get(path) as string | null;
  let text: string | null;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    text = null;
  }
  cache.set(path, text);
  return text;
}

function resolveReference(reference: Reference, path: readonly PathSegment[], context: InterpolationContext, writeOnly = false): string | undefined {
  switch (reference.type) {
    case 'file': {
      const absolute = resolve(dirname(context.sourceFileOf?.(path) ?? context.sourceFile), reference.path);
      const text = readCached(absolute, context.fileCache);
      // A write-only value's file (a secret materialised only where apply runs) is not needed to
      // plan or validate: apply's preflight reports it when missing.
      if (text === null && writeOnly && !context.checkWriteOnlyEnv) return undefined;
      if (text === null) {
        context.problems.error(
          `file not found: ${reference.path} (\${file:} paths are relative to the YAML file)`,
          context.locate(path),
          context.reportedPath(path),
        );
        return undefined;
      }
      return text;
    }
    case 'env': {
      const value = context.processEnv[reference.name];
      if (value !== undefined && value !== '') return value;
      if (reference.fallback !== undefined) return reference.fallback;
      if (context.unsetEnv !== undefined) return context.unsetEnv;
      const reportTo = writeOnly
        ? context.checkWriteOnlyEnv
          ? context.problems
          : undefined
        : context.checkEnv
          ? context.problems
          : context.deferredEnvProblems;
      reportTo?.error(
        `environment variable ${reference.name} is not set (or use \${env:${reference.name}:-default})`,
        context.locate(path),
        context.reportedPath(path),
      );
      return undefined;
    }
    case 'var': {
      const value = context.variables[reference.name];
      if (value !== undefined) return value;
      const known = Object.keys(context.variables);
      context.problems.error(
        `variable "${reference.name}" is not defined for this environment${didYouMean(reference.name, known)}`,
        context.locate(path),
        context.reportedPath(path),
      );
      return undefined;
    }
  }
}

export function interpolateString(input: string, path: readonly PathSegment[], context: InterpolationContext): string {
  if (!hasInterpolation(input)) return input;
  try {
    let out = '';
    for (const part of parseTemplate(input)) {
      out += 'text' in part ? part.text : (resolveReference(part.reference, path, context) ?? '');
    }
    return out;
  } catch (error) {
    if (!(error instanceof InterpolationSyntaxError)) throw error;
    context.problems.error(error.message, context.locate(path), context.reportedPath(path));
    return input;
  }
}

/** True when the string names an ${env:} variable that is unset and has no default (its value is unknown). */
export function hasUnsetEnv(input: string, processEnv: NodeJS.ProcessEnv): boolean {
  if (!hasInterpolation(input)) return false;
  try {
    return parseTemplate(input).some(
      (part) => 'reference' in part && part.reference.type === 'env' && part.reference.fallback === undefined && !processEnv[part.reference.name],
    );
  } catch {
    return true;
  }
}

/** Interpolates every string of a value (keys are left alone). */
export function interpolateValue(value: JsonValue, path: readonly PathSegment[], context: InterpolationContext): JsonValue {
  return interpolateAt(value, [...path], context);
}

/**
 * `path` is one stack for the whole walk (a spec has many values, and most have no `${`): the
 * context copies it when it reports (locate, reportedPath), nothing keeps it.
 *
 * A list or map none of whose strings change is returned as it is, not copied: most of a spec has
 * no `${`, and a copy of every spec of a large project was a good part of what a plan allocated
 * and kept. The result may therefore share parts with the parsed document; neither is changed in
 * place afterwards (overlays merge into new objects, config/merge.ts).
 */
function interpolateAt(value: JsonValue, path: PathSegment[], context: InterpolationContext): JsonValue {
  if (typeof value === 'string') return interpolateString(value, path, context);
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = value[index] as JsonValue;
      path.push(index);
      const interpolated = interpolateAt(item, path, context);
      path.pop();
      if (out) out.push(interpolated);
      else if (interpolated !== item) (out = value.slice(0, index)).push(interpolated);
    }
    return out ?? value;
  }
  if (value !== null && typeof value === 'object') {
    let out: { [key: string]: JsonValue } | undefined;
    for (const key in value) {
      const item = value[key] as JsonValue;
      path.push(key);
      const interpolated = interpolateAt(item, path, context);
      path.pop();
      if (out) out[key] = interpolated;
      else if (interpolated !== item) {
        // The keys before this one, in their order, then this one.
        out = {};
        for (const earlier in value) {
          if (earlier === key) break;
          out[earlier] = value[earlier] as JsonValue;
        }
        out[key] = interpolated;
      }
    }
    return out ?? value;
  }
  return value;
}

/** A rotation marker as written, and where (relative to the spec). */
export interface RotationMarker {
  value: unknown;
  path: readonly PathSegment[];
}

/**
 * How far ahead of this machine's clock a marker may be: a time, a few minutes (clocks differ); a
 * date, a day (it means midnight UTC, and "today" east of UTC starts up to 14 hours earlier).
 */
const MARKER_SLACK_MS = { time: 5 * 60_000, date: 24 * 3600_000 } as const;

/**
 * The rotation marker, unless it is in the future: a marker later than the remote object's
 * `updatedAt` sends the value again, and every send moves `updatedAt` to now, still before the
 * marker, so a future marker would send the secret again with every apply until that time.
 */
function rotationMarker(marker: RotationMarker | undefined, context: InterpolationContext): string | undefined {
  if (typeof marker?.value !== 'string') return undefined;
  const at = Date.parse(marker.value);
  if (Number.isNaN(at)) return marker.value; // its form is the schema's to report
  const slack = /^\d{4}-\d{2}-\d{2}$/.test(marker.value) ? MARKER_SLACK_MS.date : MARKER_SLACK_MS.time;
  if (at > Date.now() + slack) {
    context.problems.error(
      `${marker.value} is in the future: until then every apply would send the value again; set rotatedAt to when you rotated it (now or a past time)`,
      context.locate(marker.path),
      context.reportedPath(marker.path),
    );
    return undefined;
  }
  return marker.value;
}

/**
 * A write-only value: exactly one ${env:…} or ${file:…}, never a literal (the message never
 * repeats what was written). A file's trailing newline is not part of the value.
 */
export function writeOnlyValue(
  raw: unknown,
  marker: RotationMarker | undefined,
  path: readonly PathSegment[],
  context: InterpolationContext,
): WriteOnlyValue | undefined {
  const rotatedAt = rotationMarker(marker, context);
  const reference = typeof raw === 'string' ? singleSecretReference(raw) : undefined;
  if (!reference) {
    context.problems.error(
      'a write-only value must be exactly ${env:NAME} or ${file:PATH}: a literal value (or any other text) is not allowed here',
      context.locate(path),
      context.reportedPath(path),
    );
    return undefined;
  }
  let value = resolveReference(reference, path, context, true);
  if (value !== undefined && reference.type === 'file') value = value.replace(/\r?\n$/, '');
  return {
    source: reference.raw,
    ...(value !== undefined ? { value } : {}),
    ...(rotatedAt !== undefined ? { rotatedAt } : {}),
  };
}
