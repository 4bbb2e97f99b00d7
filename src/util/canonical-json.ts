// Canonical JSON, one implementation for the client and the local control plane: object keys
// sorted at every depth, no whitespace, so two values that mean the same serialise (and hash) the
// same. The client's fingerprints (saved plans, the tool lock's digests) and the local plane's
// stored definition hashes are made with it.

/**
 * JSON with object keys sorted, so equal values always serialise (and hash) the same. Built as one
 * string rather than as a sorted copy then stringified: half the cost on every agents.upsert, and
 * the same text (stored hashes stay valid): undefined members are left out, undefined array items
 * and non-finite numbers are null, a `__proto__` key is an ordinary key, and array-index keys come
 * first (sortedKeys).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonicalJson((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  let out = '{';
  const keys = sortedKeys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const inner = (value as Record<string, unknown>)[key];
    if (inner === undefined || typeof inner === 'function' || typeof inner === 'symbol') continue;
    out += `${(out.length === 1 ? '' : ',') + JSON.stringify(key)}:${canonicalJson(inner)}`;
  }
  return `${out}}`;
}

/** Array-index keys ("0", "17"): an object lists them first, in numeric order, whatever their insertion order. */
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
/** The first character is tested before the pattern: nearly no key starts with a digit, and the pattern on every key was a tenth of canonicalJson. */
const isArrayIndex = (key: string): boolean => {
  const first = key.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && ARRAY_INDEX.test(key) && Number(key) < 4_294_967_295;
};

/**
 * The order in which the former implementation's sorted copy listed its keys: sorted, except that
 * array-index keys come first in numeric order (a JS object always lists those first).
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value).sort();
  if (!keys.some(isArrayIndex)) return keys;
  const indices = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...keys.filter((key) => !isArrayIndex(key))];
}
