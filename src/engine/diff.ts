// Field-level comparison of one desired spec against the normalised remote spec.
//
// The walk follows the DESIRED value: a field the user did not write is never compared, so values
// the server fills in never show up as changes (no perpetual diffs). Key order never matters,
// numbers compare by value, arrays listed as sets compare as sets, other arrays element by element.
import type { FieldChange, JsonObject, JsonValue } from '../model/resources.js';
import { canonicalJson } from './canonical.js';

export interface DiffRules {
  /** Field patterns (array indices written `[]`) of arrays that compare as sets. */
  sets?: ReadonlySet<string>;
  /** Known server defaults by field pattern; see server-defaults.ts for how they are used. */
  defaults?: Readonly<Record<string, JsonValue>>;
  /** Field patterns whose change cannot be made in place; a change at or below one forces a replace. */
  forcesReplace?: ReadonlySet<string>;
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `a.b`, or `a["x.y"]` when the key would be ambiguous in a dotted path. */
export function joinPath(base: string, key: string): string {
  if (PLAIN_KEY.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality with key order ignored (numbers compare by value, as JSON numbers do). */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keysA = Object.keys(a).filter((key) => a[key] !== undefined);
    const keysB = Object.keys(b).filter((key) => b[key] !== undefined);
    if (keysA.length !== keysB.length) return false;
    for (const key of keysA) if (!jsonEqual(a[key], b[key])) return false;
    return true;
  }
  return false;
}

function setEqual(a: JsonValue[], b: JsonValue[]): boolean {
  const left = new Set(a.map(canonicalJson));
  const right = new Set(b.map(canonicalJson));
  if (left.size !== right.size) return false;
  for (const item of left) if (!right.has(item)) return false;
  return true;
}

class Walker {
  readonly changes: FieldChange[] = [];
  constructor(private readonly rules: DiffRules) {}

  private record(path: string, pattern: string, before: JsonValue | undefined, after: JsonValue | undefined): void {
    const change: FieldChange = { path };
    if (before !== undefined) change.before = before;
    if (after !== undefined) change.after = after;
    if (this.forcesReplace(pattern)) change.forcesReplace = true;
    this.changes.push(change);
  }

  private forcesReplace(pattern: string): boolean {
    const replace = this.rules.forcesReplace;
    if (!replace || replace.size === 0) return false;
    if (replace.has(pattern)) return true;
    for (const prefix of replace) {
      if (pattern.startsWith(`${prefix}.`) || pattern.startsWith(`${prefix}[`)) return true;
    }
    return false;
  }

  private hasDefault(pattern: string): boolean {
    return this.rules.defaults !== undefined && Object.prototype.hasOwnProperty.call(this.rules.defaults, pattern);
  }

  walk(desired: JsonValue | undefined, actual: JsonValue | undefined, path: string, pattern: string): void {
    if (desired === undefined) return;
    if (desired === null) {
      // "Reset to the server default": satisfied by absent, null, or the known default.
      if (actual === undefined || actual === null) return;
      if (this.hasDefault(pattern) && jsonEqual(this.rules.defaults![pattern], actual)) return;
      this.record(path, pattern, actual, null);
      return;
    }
    if (actual === undefined && this.hasDefault(pattern) && this.equalAt(desired, this.rules.defaults![pattern], pattern)) return;
    if (isObject(desired)) {
      if (actual === undefined || isObject(actual)) {
        const remote = actual ?? {};
        for (const key of Object.keys(desired)) {
          this.walk(desired[key], remote[key], joinPath(path, key), joinPath(pattern, key));
        }
        return;
      }
      this.record(path, pattern, actual, desired);
      return;
    }
    if (Array.isArray(desired)) {
      if (!Array.isArray(actual)) {
        this.record(path, pattern, actual, desired);
        return;
      }
      if (this.rules.sets?.has(pattern)) {
        if (!setEqual(desired, actual)) this.record(path, pattern, actual, desired);
        return;
      }
      if (desired.some(isObject)) {
        this.walkElements(desired, actual, path, pattern);
        return;
      }
      if (!jsonEqual(desired, actual)) this.record(path, pattern, actual, desired);
      return;
    }
    if (!jsonEqual(desired, actual)) this.record(path, pattern, actual, desired);
  }

  /** Arrays of objects: element by element in order (`tools[2].name`), extra elements added or removed. */
  private walkElements(desired: JsonValue[], actual: JsonValue[], path: string, pattern: string): void {
    const elementPattern = `${pattern}[]`;
    for (let i = 0; i < desired.length; i++) {
      const elementPath = `${path}[${i}]`;
      if (i >= actual.length) this.record(elementPath, elementPattern, undefined, desired[i]);
      else this.walk(desired[i], actual[i], elementPath, elementPattern);
    }
    for (let i = desired.length; i < actual.length; i++) {
      this.record(`${path}[${i}]`, elementPattern, actual[i], undefined);
    }
  }

  private equalAt(a: JsonValue, b: JsonValue, pattern: string): boolean {
    if (Array.isArray(a) && Array.isArray(b) && this.rules.sets?.has(pattern)) return setEqual(a, b);
    return jsonEqual(a, b);
  }
}

/**
 * The changes needed to make `actual` match `desired`, one per changed leaf (or per changed array,
 * for arrays of scalars and sets). Never throws on any JSON input.
 */
export function diffSpec(desired: JsonObject, actual: JsonObject, rules: DiffRules): FieldChange[] {
  const walker = new Walker(rules);
  walker.walk(desired, actual, '', '');
  return walker.changes;
}

/** Every field a create sends, as `after`-only changes (nulls are left out: they are not sent). */
export function specAsFields(spec: JsonObject): FieldChange[] {
  const fields: FieldChange[] = [];
  const visit = (value: JsonValue, path: string) => {
    if (value === null) return;
    if (isObject(value) && Object.keys(value).length > 0) {
      for (const key of Object.keys(value)) visit(value[key] as JsonValue, joinPath(path, key));
      return;
    }
    fields.push({ path, after: value });
  };
  for (const key of Object.keys(spec)) visit(spec[key] as JsonValue, joinPath('', key));
  return fields;
}
