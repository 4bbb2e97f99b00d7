// Every value the local control plane fills in when a request leaves a field out — in ONE table per
// server profile (this is the default profile's; the pessimistic one is in pessimistic.ts),
// mirrored in docs/local-control-plane.md. `fillDefaults` deep-fills only what is missing: a value
// the request set (including `null`, `false`, `0`, `""`, `[]`) is kept as sent; arrays are never merged.
import { isPlainObject } from './util.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Defaults of an object that is only filled when the request has that object at all. */
const ONLY_WHEN_PRESENT = Symbol('only when present');
interface Conditional {
  [ONLY_WHEN_PRESENT]: true;
  value: DefaultsTree;
}
/** Defaults filled into every object element of an array the request has (the array itself is never filled). */
const EACH_ELEMENT = Symbol('each element');
interface PerElement {
  [EACH_ELEMENT]: true;
  value: DefaultsTree;
}
export type DefaultsTree = { [key: string]: Json | Conditional | PerElement | DefaultsTree };

export const whenPresent = (value: DefaultsTree): Conditional => ({ [ONLY_WHEN_PRESENT]: true, value });
export const eachElement = (value: DefaultsTree): PerElement => ({ [EACH_ELEMENT]: true, value });

/** The objects a profile fills defaults into. */
export interface ServerDefaults {
  agentDefinition: DefaultsTree;
  connection: DefaultsTree;
  environment: DefaultsTree;
  apiKey: DefaultsTree;
  provider: DefaultsTree;
}

export const DEFAULTS = {
  agentDefinition: {
    description: '',
    model: { reasoning: 'none' },
    toolLoading: { mode: 'eager', autoThreshold: 20 },
    policies: {
      toolCalls: { default: 'allow', byTool: {}, onError: 'allow', onTimeout: 'allow', timeoutMs: 30_000 },
      decisions: { expiresInSeconds: 300, onExpire: 'deny' },
    },
    limits: { maxTurns: 100, maxInputTokensPerSession: 2_000_000 },
    compaction: {
      mode: 'auto',
      thresholdPercent: 80,
      reserveOutputTokens: 8_192,
      keepRecentMessages: 10,
      preserve: ['tool_results'],
    },
    overrides: { model: false, reasoning: false, system: 'none', compaction: false, sandbox: false },
    subagents: [],
    subagentPolicy: { selfDelegation: false, maxDepth: 2, maxConcurrent: 4, maxTotalPerSession: 16, childInputTokenBudget: 200_000 },
    identity: { required: false, switchable: false, scopesAllowed: [] },
    // An agent without a sandbox gets none; one with a sandbox gets these inside it.
    sandbox: whenPresent({
      image: { steps: [], secrets: [] },
      resources: { cpu: 1, memoryMb: 2_048 },
      network: { egress: { mode: 'unrestricted' } },
      idleTimeoutMs: 600_000,
      preview: { enabled: false, auth: 'signed-url' },
      scope: 'tree',
      tools: { preset: 'read-only', allow: [], deny: [] },
      serializeTools: false,
      lifecycle: {
        idleAfterMs: 300_000,
        onIdle: 'release',
        snapshotEveryMs: 900_000,
        keepSnapshots: 3,
        resume: 'snapshot',
        maxSnapshotAgeMs: 604_800_000,
      },
    }),
  },
  connection: { transport: 'streamable-http', channel: 'default', hooksUrl: null, hookEvents: [] },
  environment: {
    kind: 'development',
    expiresAt: null,
    spend: {},
    retention: { sessionEventsDays: 30, deliveredHooksDays: 7, deadHooksDays: 30, spansDays: 14, usageRollupDays: 400 },
  },
  apiKey: { identityScopes: [], spend: {}, expiresAt: null },
  provider: { baseUrl: null },
} satisfies ServerDefaults;

function isConditional(value: unknown): value is Conditional {
  return isPlainObject(value) && (value as Partial<Conditional>)[ONLY_WHEN_PRESENT] === true;
}

function isPerElement(value: unknown): value is PerElement {
  return isPlainObject(value) && (value as Partial<PerElement>)[EACH_ELEMENT] === true;
}

/**
 * A default of its own for each object that gets it (the tables hold JSON values only). A copy by
 * hand, not structuredClone: that is slow for the small arrays of an agent definition, and
 * fillDefaults runs on every agents.upsert.
 */
function copyJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copyJson((value as Record<string, unknown>)[key]);
  return out as T;
}

/** Each defaults object's entries, listed once (Object.entries made a fresh array on every call). */
const entriesOfTree = new WeakMap<DefaultsTree, Array<[string, DefaultsTree[string]]>>();

function entriesOf(defaults: DefaultsTree): Array<[string, DefaultsTree[string]]> {
  let entries = entriesOfTree.get(defaults);
  if (!entries) {
    entries = Object.entries(defaults);
    entriesOfTree.set(defaults, entries);
  }
  return entries;
}

/** A copy of `value` with every field of `defaults` it lacks filled in, recursively. */
export function fillDefaults<T extends object>(value: T, defaults: DefaultsTree): T {
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, fallback] of entriesOf(defaults)) {
    const current = out[key];
    if (isConditional(fallback)) {
      if (isPlainObject(current)) out[key] = fillDefaults(current, fallback.value);
    } else if (isPerElement(fallback)) {
      if (Array.isArray(current)) out[key] = current.map((item: unknown) => (isPlainObject(item) ? fillDefaults(item, fallback.value) : item));
    } else if (current === undefined) {
      out[key] = isPlainObject(fallback) ? fillDefaults({}, fallback as DefaultsTree) : copyJson(fallback);
    } else if (isPlainObject(current) && isPlainObject(fallback)) {
      out[key] = fillDefaults(current, fallback as DefaultsTree);
    }
  }
  return out as T;
}
