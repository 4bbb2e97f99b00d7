// Canonical JSON: object keys sorted at every depth, no whitespace, so that two values that mean the
// same thing serialise to the same string. Fingerprints of remote objects are its sha256.
import { sha256Hex } from '../util/sha256.js';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    // `undefined` (and functions) have no JSON form; treat them as null so the output is always JSON.
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  // Plain loops and one growing string: this runs over every remote object of a plan (measured:
  // about twice as fast as map/filter/join on agents).
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const inner = record[key];
    if (inner === undefined) continue;
    out += (out.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + canonicalJson(inner);
  }
  return `${out}}`;
}

/** `sha256:<hex>` of the canonical JSON of a value. */
export function fingerprint(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}
