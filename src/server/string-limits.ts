// Every string a request gives the local control plane has a length limit: without one, a 950 KB
// name fit in the 1 MB body, was stored, and came back in every list and plan. The limits are kept
// in this one table, by the field's own key wherever it appears (a `name` is a name in every
// request, an item of `steps` is a step), with a default for every other string; each is generous
// for real use. Lengths are in UTF-16 code units (JavaScript's `length`). request-body.ts applies
// them while it walks the body.

const KIB = 1024;

/** Longest string, in characters, of every field with this key, wherever it appears. */
export const FIELD_LIMITS: Readonly<Record<string, number>> = {
  // Names, slugs and labels: what plans, lists and `whoami` show on one line.
  name: 200,
  slug: 200,
  kind: 200,
  group: 200,
  connectionName: 200,
  agent: 200,
  description: 4_000,
  // Prompts and instructions are documents.
  system: 100 * KIB,
  prompt: 100 * KIB,
  // Write-only values: a secret, a provider's credential, OAuth tokens (a JWT can run to kilobytes).
  value: 64 * KIB,
  secret: 64 * KIB,
  accessToken: 16 * KIB,
  refreshToken: 16 * KIB,
  // URLs: 8 KiB is what common servers and proxies accept in a request line.
  url: 8 * KIB,
  hooksUrl: 8 * KIB,
  baseUrl: 8 * KIB,
  // An image build step can be a long shell command.
  steps: 16 * KIB,
};

/** Any other string: ids, model names, enum values, timestamps, tool names. */
export const DEFAULT_STRING_LIMIT = 4 * KIB;

/** Any other string inside a connection's `auth`, whose fields are free: credentials (a PEM key, a token). */
export const AUTH_STRING_LIMIT = 64 * KIB;

/** A property name, also of an object filled freely (`policies.toolCalls.byTool`'s tool names). */
export const KEY_LIMIT = 256;

/** The limit of strings under `key` (an array's items share it), given the limit of strings under its parent. */
export function limitUnder(key: string, parentFallback: number): number {
  return FIELD_LIMITS[key] ?? parentFallback;
}

/** The fallback for strings deeper under `key`: credentials under `auth`, else the default. */
export function fallbackUnder(key: string, parentFallback: number): number {
  return key === 'auth' ? AUTH_STRING_LIMIT : parentFallback;
}
