// Fingerprints of remote objects: the sha256 of their canonical JSON (src/util/canonical-json.ts).
import { canonicalJson } from '../util/canonical-json.js';
import { sha256Hex } from '../util/sha256.js';

export { canonicalJson };

/** `sha256:<hex>` of the canonical JSON of a value. */
export function fingerprint(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}
