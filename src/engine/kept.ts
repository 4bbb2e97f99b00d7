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

/** Marks "not found" (undefined is a value a lookup can step over, never one it returns). */
const ABSENT: unique symbol = Symbol('absent');

/** The value at `keys`, or ABSENT; allocation-free, since it runs for every field of every agent of every plan. */
function lookup(root: JsonObject, keys: readonly string[]): JsonValue | typeof ABSENT {
  let current: JsonValue = root;
  for (let step = 0; step < keys.length; step++) {
    const key = keys[step] as string;
    if (!isObject(current) || !(key in current) || current[key] === undefined) return ABSENT;
    current = current[key] as JsonValue;
  }
  return current;
}

/** The value without what says nothing: nulls, empty lists and maps, known defaults (by pattern). */
function meaningful(value: JsonValue, pattern: string, defaults: Readonly<Record<string, JsonValue>>): JsonValue | undefined {
  if (value === null) return undefined;
  if (Object.hasOwn(defaults, pattern) && jsonEqual(defaults[pattern], value)) return undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value;
  if (isObject(value)) {
    // Most objects say nothing (all defaults): only what is kept is sorted and copied.
    let kept: Array<[string, JsonValue]> | undefined;
    for (const key in value) {
      const inner = meaningful(value[key] as JsonValue, joinPath(pattern, key), defaults);
      if (inner !== undefined) (kept ??= []).push([key, inner]);
    }
    if (!kept) return undefined;
    // Sorted keys: the line reads the same whatever order the server answers in.
    kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const out: JsonObject = {};
    for (const [key, inner] of kept) out[key] = inner;
    return out;
  }
  return value;
}

/** Per kind, computed once: each pattern with its keys split, and the values not worth a line. */
interface KindTable {
  patterns: ReadonlyArray<{ pattern: string; keys: readonly string[] }>;
  defaults: Readonly<Record<string, JsonValue>>;
}
const TABLES = new Map<ResourceKind, KindTable>();
function tableFor(kind: ResourceKind): KindTable {
  let table = TABLES.get(kind);
  if (!table) {
    table = {
      patterns: KEPT_FIELDS[kind].map((pattern) => ({ pattern, keys: pattern.split('.') })),
      defaults: { ...SERVER_DEFAULTS[kind], ...QUIET_VALUES[kind] },
    };
    TABLES.set(kind, table);
  }
  return table;
}

export function keptFields(kind: ResourceKind, desired: JsonObject, remote: JsonObject): KeptField[] {
  const { patterns, defaults } = tableFor(kind);
  const out: KeptField[] = [];
  for (let index = 0; index < patterns.length; index++) {
    const { pattern, keys } = patterns[index] as KindTable['patterns'][number];
    if (belowKept(out, pattern)) continue;
    // Mentioned (even as null, or as part of a whole value above it): managed, or a finer field decides.
    if (lookup(desired, keys) !== ABSENT) continue;
    if (!parentsAreObjects(desired, keys)) continue;
    const current = lookup(remote, keys);
    if (current === ABSENT) continue;
    const value = meaningful(current, pattern, defaults);
    if (value === undefined && !(PRESENCE_MATTERS.has(pattern) && isObject(current))) continue;
    out.push({ path: pattern, value: value ?? {} });
  }
  return out;
}

/**
 * Whether `pattern` lies below a field already kept (`a.b` below `a`). A loop, not `kept.some(...)`:
 * that made a closure per pattern and resource, much garbage in a large plan.
 */
function belowKept(kept: readonly KeptField[], pattern: string): boolean {
  // Indexed: for...of made an iterator and a result object per step, in code V8 had not optimised yet.
  for (let index = 0; index < kept.length; index++) {
    const parent = (kept[index] as KeptField).path;
    if (pattern.startsWith(parent) && pattern.charCodeAt(parent.length) === 46 /* . */) return true;
  }
  return false;
}

/** False when the configuration sets a non-object on the way to `keys` (then it is not "left out"). */
function parentsAreObjects(desired: JsonObject, keys: readonly string[]): boolean {
  let current: JsonValue | undefined = desired;
  for (let index = 0; index < keys.length - 1; index++) {
    if (current === undefined) return true;
    if (!isObject(current)) return false;
    current = current[keys[index] as string];
  }
  return current === undefined || isObject(current);
}
