// Remote values the configuration does not manage but a reviewer needs to see: apply keeps them
// (merge.ts), so a permissive tool policy or a sandbox added out of band would otherwise stay
// invisible. Only fields that matter for safety are looked at, one line each, and only when the
// remote value is present, not empty and not a known default (server-defaults.ts: display only).
// Pure.
import type { JsonObject, JsonValue, KeptField, ResourceKind } from '../model/resources.js';
import { joinPath, jsonEqual } from './diff.js';
import { SERVER_DEFAULTS } from './server-defaults.js';

/**
 * Per kind, the fields worth showing, coarse before fine: when the configuration does not mention
 * an object at all (`sandbox`), the whole object is one line; when it mentions part of it, the
 * finer fields it leaves out are looked at (`sandbox.tools.deny`).
 */
const KEPT_FIELDS: { readonly [K in ResourceKind]: readonly string[] } = {
  organization: [],
  environment: ['spend', 'spend.agentMinutesPerMonth', 'spend.tokensPerMonth', 'spend.dailyUsd'],
  secret: [],
  provider: [],
  connection: ['hooksUrl', 'hookEvents'],
  grant: [],
  agent: [
    'tools',
    'subagents',
    'policies.toolCalls.default',
    'policies.toolCalls.hook',
    'policies.toolCalls.byTool',
    'policies.toolCalls.onError',
    'policies.toolCalls.onTimeout',
    'sandbox',
    'sandbox.connectionName',
    'sandbox.network.egress.mode',
    'sandbox.image.secrets',
    'sandbox.tools',
    'sandbox.tools.preset',
    'sandbox.tools.allow',
    'sandbox.tools.deny',
    'identity',
    'identity.required',
    'identity.switchable',
    'identity.scopesAllowed',
  ],
  apiKey: [],
};

/**
 * Values not worth a line besides the known defaults: flags that are off (an identity that is not
 * required cannot be switched). Display only, like the defaults table.
 */
const QUIET_VALUES: { readonly [K in ResourceKind]?: Readonly<Record<string, JsonValue>> } = {
  agent: { 'identity.required': false, 'identity.switchable': false },
};

/** Objects whose mere presence matters (an agent with a sandbox block gets a sandbox). */
const PRESENCE_MATTERS = new Set(['sandbox']);

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Lookup = { found: false } | { found: true; value: JsonValue };

function lookup(root: JsonObject, pattern: string): Lookup {
  let current: JsonValue = root;
  for (const key of pattern.split('.')) {
    if (!isObject(current) || !(key in current) || current[key] === undefined) return { found: false };
    current = current[key] as JsonValue;
  }
  return { found: true, value: current };
}

/** The value without what says nothing: nulls, empty lists and maps, known defaults (by pattern). */
function meaningful(value: JsonValue, pattern: string, defaults: Readonly<Record<string, JsonValue>>): JsonValue | undefined {
  if (value === null) return undefined;
  if (Object.prototype.hasOwnProperty.call(defaults, pattern) && jsonEqual(defaults[pattern], value)) return undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value;
  if (isObject(value)) {
    // Sorted keys: the line reads the same whatever order the server answers in.
    const out: JsonObject = {};
    for (const [key, inner] of Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const kept = meaningful(inner, joinPath(pattern, key), defaults);
      if (kept !== undefined) out[key] = kept;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}

export function keptFields(kind: ResourceKind, desired: JsonObject, remote: JsonObject): KeptField[] {
  const defaults = { ...SERVER_DEFAULTS[kind], ...QUIET_VALUES[kind] };
  const out: KeptField[] = [];
  const shown: string[] = [];
  for (const pattern of KEPT_FIELDS[kind]) {
    if (shown.some((parent) => pattern.startsWith(`${parent}.`))) continue;
    const configured = lookup(desired, pattern);
    // Mentioned (even as null, or as part of a whole value above it): managed, or a finer field decides.
    if (configured.found) continue;
    if (!parentsAreObjects(desired, pattern)) continue;
    const current = lookup(remote, pattern);
    if (!current.found) continue;
    const value = meaningful(current.value, pattern, defaults);
    if (value === undefined && !(PRESENCE_MATTERS.has(pattern) && isObject(current.value))) continue;
    out.push({ path: pattern, value: value ?? {} });
    shown.push(pattern);
  }
  return out;
}

/** False when the configuration sets a non-object on the way to `pattern` (then it is not "left out"). */
function parentsAreObjects(desired: JsonObject, pattern: string): boolean {
  let current: JsonValue | undefined = desired;
  for (const key of pattern.split('.').slice(0, -1)) {
    if (current === undefined) return true;
    if (!isObject(current)) return false;
    current = current[key];
  }
  return current === undefined || isObject(current);
}
