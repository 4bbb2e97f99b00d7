// What apply writes for a resource that exists: the remote value with the configured fields merged
// in. Fields the configuration does not mention are not managed, so they keep their remote value
// whether the server treats a write as a patch or as a replace (agents.upsert replaces the whole
// definition). The rules match the diff (diff.ts), so the fields whose value the write changes are
// exactly the fields the plan lists:
// - objects merge key by key; a remote key the configuration does not mention is kept, including
//   fields the tool does not know;
// - maps keyed by user data (`DiffRules.wholeValues`) and arrays of scalars are whole values: the
//   configured value replaces the remote one;
// - arrays of objects take the configured length and order; an element merges with the remote
//   element at the same position, like any object (so fields a server fills inside elements stay);
// - `null` ("left to the server") is left out (`nulls: 'omit'`), or sent as `null` to an update
//   operation that may patch (`nulls: 'send'`), so the server applies its default either way.
// Pure.
import type { JsonObject, JsonValue } from '../model/resources.js';
import { canonicalJson } from './canonical.js';
import { elementPattern, joinPath, type DiffRules } from './diff.js';
import { withoutNulls } from '../model/json.js';

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type NullHandling = 'omit' | 'send';

const OMIT = Symbol('omit');

export function mergeForWrite(desired: JsonObject, remote: JsonObject | undefined, rules: DiffRules, nulls: NullHandling): JsonObject {
  const mergeValue = (want: JsonValue | undefined, have: JsonValue | undefined, pattern: string): JsonValue | undefined | typeof OMIT => {
    if (want === undefined) return have;
    if (want === null) return nulls === 'send' ? null : OMIT;
    if (rules.wholeValues?.has(pattern)) return withoutNulls(want);
    if (isObject(want)) return mergeObject(want, isObject(have) ? have : undefined, pattern);
    if (Array.isArray(want)) {
      if (rules.sets?.has(pattern) || !Array.isArray(have)) return withoutNulls(want);
      return want.map((element, index) => {
        const remoteElement = have[index];
        if (!isObject(element)) return withoutNulls(element);
        // Inside array elements a null cannot be sent as such: it is left out.
        return isObject(remoteElement) ? mergeObject(element, remoteElement, elementPattern(pattern), 'omit') : (withoutNulls(element) as JsonObject);
      });
    }
    return want;
  };
  const mergeObject = (want: JsonObject, have: JsonObject | undefined, pattern: string, nullsHere: NullHandling = nulls): JsonObject => {
    const out: JsonObject = { ...(have ?? {}) };
    // for-in, not for-of over Object.keys: no key array and no iterator results per object (this
    // runs for every resource of every plan, mostly before the optimiser has compiled it).
    for (const key in want) {
      const wanted = want[key];
      if (wanted === undefined) continue;
      if (wanted === null && nullsHere === 'omit') {
        delete out[key];
        continue;
      }
      const merged = mergeValue(wanted, out[key], joinPath(pattern, key));
      if (merged === OMIT) delete out[key];
      else if (merged !== undefined) out[key] = merged;
    }
    return out;
  };
  return mergeObject(desired, remote, '');
}

/**
 * The part of `remote` that a write of `desired` replaces: mergeForWrite's complement, by the same
 * rules, so everything left out of it is what the write keeps. Each configured field at the depth
 * the write replaces it (a whole array of scalars, a set in a canonical order, a map keyed by user
 * data, a field reset with `null`); inside objects, only the keys the configuration names; inside
 * arrays of objects, each element as far as the configured element names it (and the elements the
 * write drops, whole). Apply compares it between the plan's read and a fresh one.
 */
export function managedPart(desired: JsonObject, remote: JsonObject, rules: DiffRules): JsonObject {
  const partOf = (want: JsonValue, have: JsonValue | undefined, pattern: string): JsonValue | undefined => {
    // A set in a canonical order: a server may answer it in any order, read after read.
    if (rules.sets?.has(pattern) && Array.isArray(have)) return have.map(canonicalJson).sort();
    if (want === null || have === undefined || rules.wholeValues?.has(pattern)) return have;
    if (isObject(want)) return isObject(have) ? objectPart(want, have, pattern) : have;
    if (Array.isArray(want) && Array.isArray(have)) {
      const element = elementPattern(pattern);
      return have.map((item, index) => {
        const wanted = want[index];
        return isObject(wanted) && isObject(item) ? objectPart(wanted, item, element) : item;
      });
    }
    return have;
  };
  const objectPart = (want: JsonObject, have: JsonObject, pattern: string): JsonObject => {
    const out: JsonObject = {};
    for (const key in want) {
      const wanted = want[key];
      if (wanted === undefined) continue;
      const part = partOf(wanted, have[key], joinPath(pattern, key));
      if (part !== undefined) out[key] = part;
    }
    return out;
  };
  return objectPart(desired, remote, '');
}

/**
 * The part of a value a request shape knows: `true` keeps a field as it is, a nested shape keeps
 * only the fields it names. Update operations get only fields of their documented request.
 */
export type RequestShape = { readonly [field: string]: true | RequestShape };

export function restrictToShape(value: JsonObject, shape: RequestShape): JsonObject {
  const out: JsonObject = {};
  for (const [field, inner] of Object.entries(shape)) {
    const current = value[field];
    if (current === undefined) continue;
    out[field] = inner === true || !isObject(current) ? current : restrictToShape(current, inner);
  }
  return out;
}
