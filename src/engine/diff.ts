// Field-level comparison of one desired spec against the normalised remote spec.
//
// The walk follows the DESIRED value: a field the user did not write is not managed (apply keeps
// its remote value, see merge.ts), so it is never compared and values the server fills in never
// show up as changes. `null` ("left to the server") is never compared either: whatever default the
// server applies is accepted (see resetFields). Key order never matters, numbers compare by value,
// arrays listed as sets compare as sets, arrays of objects element by element, maps keyed by user
// data as whole values. An absent or `null` remote value equals an empty list or map: a server may
// leave empty collections out of its answers. No rule depends on knowing the server's defaults.
import type { FieldChange, JsonObject, JsonValue } from '../model/resources.js';
import { canonicalJson } from './canonical.js';

export interface DiffRules {
  /** Field patterns (array indices written `[]`) of arrays that compare as sets. */
  sets?: ReadonlySet<string>;
  /**
   * Field patterns of maps keyed by user data (`policies.toolCalls.byTool`): compared and written
   * as whole values, so an entry the configuration does not list is removed, not kept.
   */
  wholeValues?: ReadonlySet<string>;
  /** Field patterns whose change cannot be made in place; a change at or below one forces a replace. */
  forcesReplace?: ReadonlySet<string>;
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/**
 * Joined paths by base and key. The same few dozen paths and patterns come back for every resource
 * of a kind, in each of the diff, the merge and the kept fields: each is built once, and being the same string every time, its hash is too (the rule
 * sets are looked up by pattern). Bounded, since keys can be user data (maps like `byTool`).
 */
const joined = new Map<string, Map<string, string>>();
let joinedCount = 0;
const MAX_JOINED = 20_000;

/** `a.b`, or `a["x.y"]` when the key would be ambiguous in a dotted path. */
export function joinPath(base: string, key: string): string {
  let byKey = joined.get(base);
  const known = byKey?.get(key);
  if (known !== undefined) return known;
  const path = PLAIN_KEY.test(key) ? (base === '' ? key : `${base}.${key}`) : `${base}[${JSON.stringify(key)}]`;
  if (joinedCount >= MAX_JOINED) {
    joined.clear();
    joinedCount = 0;
    byKey = undefined;
  }
  if (!byKey) joined.set(base, (byKey = new Map()));
  byKey.set(key, path);
  joinedCount++;
  return path;
}

const elementPatterns = new Map<string, string>();

/** The pattern of an array's elements (`tools[]`), built once per array pattern. */
export function elementPattern(pattern: string): string {
  let element = elementPatterns.get(pattern);
  if (element === undefined) {
    if (elementPatterns.size >= MAX_JOINED) elementPatterns.clear();
    element = `${pattern}[]`;
    elementPatterns.set(pattern, element);
  }
  return element;
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

/** An absent or null remote value stands for an empty list or map (servers may leave them out). */
function isEmptyCollection(value: JsonValue | undefined): boolean {
  return (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);
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

  walk(desired: JsonValue | undefined, actual: JsonValue | undefined, path: string, pattern: string): void {
    // Not written (not managed), or `null` (left to the server): nothing to compare.
    if (desired === undefined || desired === null) return;
    const remote = actual === null ? undefined : actual;
    if (remote === undefined && isEmptyCollection(desired)) return;
    if (this.rules.wholeValues?.has(pattern) && isObject(desired) && (remote === undefined || isObject(remote))) {
      this.walkWholeMap(desired, remote ?? {}, path, pattern);
      return;
    }
    if (isObject(desired)) {
      if (remote === undefined || isObject(remote)) {
        const fields = remote ?? {};
        for (const key in desired) {
          // Outside arrays the path is the pattern: one join serves both.
          const keyPath = joinPath(path, key);
          this.walk(desired[key], fields[key], keyPath, path === pattern ? keyPath : joinPath(pattern, key));
        }
        return;
      }
      this.record(path, pattern, actual, desired);
      return;
    }
    if (Array.isArray(desired)) {
      if (!Array.isArray(remote)) {
        this.record(path, pattern, actual, desired);
        return;
      }
      if (this.rules.sets?.has(pattern)) {
        if (!setEqual(desired, remote)) this.record(path, pattern, actual, desired);
        return;
      }
      if (desired.some(isObject)) {
        this.walkElements(desired, remote, path, pattern);
        return;
      }
      if (!jsonEqual(desired, remote)) this.record(path, pattern, actual, desired);
      return;
    }
    if (!jsonEqual(desired, remote)) this.record(path, pattern, actual, desired);
  }

  /** A map keyed by user data: every key of either side, one change per entry added, changed or removed. */
  private walkWholeMap(desired: JsonObject, actual: JsonObject, path: string, pattern: string): void {
    const keys = new Set([...Object.keys(desired), ...Object.keys(actual)]);
    for (const key of keys) {
      const want = desired[key] === null ? undefined : desired[key];
      const have = actual[key] === null ? undefined : actual[key];
      if (!jsonEqual(want, have)) this.record(joinPath(path, key), `${pattern}.*`, have, want);
    }
  }

  /** Arrays of objects: element by element in order (`tools[2].name`), extra elements added or removed. */
  private walkElements(desired: JsonValue[], actual: JsonValue[], path: string, pattern: string): void {
    const elements = elementPattern(pattern);
    for (let i = 0; i < desired.length; i++) {
      const elementPath = `${path}[${i}]`;
      if (i >= actual.length) this.record(elementPath, elements, undefined, desired[i]);
      else this.walk(desired[i], actual[i], elementPath, elements);
    }
    for (let i = desired.length; i < actual.length; i++) {
      this.record(`${path}[${i}]`, elements, actual[i], undefined);
    }
  }
}

/**
 * The changes needed to make `actual` match `desired`, one per changed leaf (or per changed array,
 * for arrays of scalars and sets; per entry, for maps keyed by user data). Never throws on any JSON
 * input. Fields set to `null` are not among them: see resetFields.
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

/**
 * The fields the configuration leaves to the server (`null`): a write of the resource for another
 * reason leaves them out (or sends null), so the server applies its default, which may differ from
 * the remote value (also when the server reported none). Listed with `resetToDefault` (before =
 * the remote value, absent when it reported none; after = null). Inside arrays of objects the
 * element at the same position is looked at, as the write merges elements by position.
 */
export function resetFields(desired: JsonObject, actual: JsonObject): FieldChange[] {
  const out: FieldChange[] = [];
  const visit = (want: JsonValue | undefined, have: JsonValue | undefined, path: string) => {
    if (want === undefined) return;
    if (want === null) {
      out.push({ path, ...(have !== undefined && have !== null ? { before: have } : {}), after: null, resetToDefault: true });
      return;
    }
    if (isObject(want) && (have === undefined || have === null || isObject(have))) {
      const fields = isObject(have) ? have : {};
      for (const key of Object.keys(want)) visit(want[key], fields[key], joinPath(path, key));
      return;
    }
    if (Array.isArray(want) && Array.isArray(have)) {
      want.forEach((element, index) => {
        if (isObject(element) && isObject(have[index])) visit(element, have[index], `${path}[${index}]`);
      });
    }
  };
  visit(desired, actual, '');
  return out;
}
