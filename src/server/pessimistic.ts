// The pessimistic server profile: a local control plane that makes, everywhere the API description
// (control-api.md) says "not shown", a different choice from the client's assumptions, so the test
// suites prove the client does not depend on them. Every behaviour here is one the description
// allows; docs/local-control-plane.md lists them with the reason each is allowed.
import { createHash } from 'node:crypto';
import type { Rpc } from '../api/operations.js';
import { eachElement, whenPresent, type ServerDefaults } from './defaults.js';
import { isPlainObject } from './util.js';

/** A far-off expiry for keys and environments that were given none ("expiresAt": no default shown). */
const FAR_EXPIRY = '2099-12-31T00:00:00.000Z';

/**
 * Other values than src/server/defaults.ts (and the client's src/engine/server-defaults.ts) for every
 * field whose default is not shown, and fields filled that those tables leave empty. Enumeration
 * values beyond the named ones are allowed ("the full sets of allowed values: not shown").
 */
export const PESSIMISTIC_DEFAULTS = {
  agentDefinition: {
    description: 'No description.',
    model: {
      reasoning: 'medium',
      // `model.fallback.models[].reasoning` too, for fallback models the request lists.
      fallback: { models: eachElement({ reasoning: 'low' }), on: ['unavailable', 'overloaded'], timeoutMs: 20_000 },
      caching: { mode: 'explicit', ttl: '1h', keepWarm: { enabled: false, idleAfterMinutes: 15, maxConcurrentPrefixes: 1, spendCapUsdPerDay: 0 } },
    },
    toolLoading: { mode: 'auto', autoThreshold: 8 },
    policies: {
      toolCalls: { default: 'ask', byTool: {}, onError: 'deny', onTimeout: 'deny', timeoutMs: 15_000 },
      decisions: { expiresInSeconds: 900, onExpire: 'allow' },
    },
    limits: { maxTurns: 40, maxInputTokensPerSession: 500_000 },
    compaction: {
      mode: 'manual',
      thresholdPercent: 65,
      contextTokens: 128_000,
      reserveOutputTokens: 4_096,
      prompt: 'Summarise the conversation so far.',
      model: whenPresent({ reasoning: 'low' }),
      keepRecentMessages: 4,
      preserve: ['tool_results', 'decisions'],
      dropToolResultsAfterTokens: 20_000,
    },
    overrides: { model: true, reasoning: true, system: 'append', compaction: true, sandbox: true },
    // `subagents` is deliberately not filled: absent, where the default profile fills [].
    subagentPolicy: { selfDelegation: true, maxDepth: 5, maxConcurrent: 2, maxTotalPerSession: 32, childInputTokenBudget: 100_000 },
    identity: { required: true, switchable: true, scopesAllowed: ['user'] },
    sandbox: whenPresent({
      provider: 'local',
      image: { base: 'debian:bookworm-slim', steps: [], secrets: [] },
      resources: { cpu: 2, memoryMb: 4_096 },
      network: { egress: { mode: 'allowlist' } },
      idleTimeoutMs: 120_000,
      preview: { enabled: true, auth: 'token' },
      scope: 'session',
      tools: { preset: 'standard', allow: [], deny: [] },
      serializeTools: true,
      lifecycle: {
        idleAfterMs: 60_000,
        onIdle: 'snapshot',
        snapshotEveryMs: 300_000,
        keepSnapshots: 5,
        resume: 'fresh',
        maxSnapshotAgeMs: 86_400_000,
      },
    }),
  },
  // `hooksUrl` is not filled (absent, where the default profile answers null).
  connection: { transport: 'sse', channel: 'stable', hookEvents: ['session.started'] },
  environment: {
    kind: 'standard',
    group: 'default',
    expiresAt: FAR_EXPIRY,
    spend: { agentMinutesPerMonth: 10_000, tokensPerMonth: 50_000_000, dailyUsd: 100 },
    retention: { sessionEventsDays: 14, deliveredHooksDays: 3, deadHooksDays: 14, spansDays: 7, usageRollupDays: 365 },
  },
  apiKey: { identityScopes: ['user'], spend: { dailyUsd: 10 }, expiresAt: FAR_EXPIRY },
  // A provider's baseUrl is reported, not stored: see presentProvider.
  provider: {},
} satisfies ServerDefaults;

/** The endpoint a provider without baseUrl is reported with (the catalogue it really uses is built in). */
export function vendorBaseUrl(type: string): string {
  const known: Record<string, string> = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com/v1' };
  return known[type] ?? `https://api.${type.toLowerCase().replace(/[^a-z0-9-]/g, '-') || 'vendor'}.example/v1`;
}

/**
 * Values whose content is free-form (a map keyed by tool name, a schema, an untyped payload): an
 * extra key there would mean something, so no unknown field is added inside them. `auth` is
 * answered as `{type}` only.
 */
const OPAQUE_FIELDS = new Set(['byTool', 'payload', 'input', 'inputSchema', 'attributes', 'auth']);

/** The unknown field added to every nested object (a stable value). */
export const NESTED_EXTRA_FIELD = 'serverRevision';
/** Unknown fields added to every record: a stable one, and one whose value changes on every read. */
export const RECORD_EXTRA_FIELD = 'region';
export const VOLATILE_FIELD = 'observedAt';
/**
 * An unknown field nested in the definition of every agent `agents.list` and `agents.get` answer
 * with (`definition.model.resolvedAt`: when the server last resolved the model), new on every read:
 * a client that reads its state from lists and sends definitions back whole must neither take it
 * for drift nor echo an old value as a change, and promote and rollback, which copy a version read
 * with agents.get, must not write it back.
 */
export const NESTED_VOLATILE_FIELD = 'resolvedAt';

/** Response fields that are lists of records, per operation, besides whole-array answers. */
const NESTED_LISTS: Partial<Record<Rpc, string>> = { 'connections.test': 'tools', 'connections.grants.import': 'results' };

function hashOf(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value) ?? 'null')
    .digest('hex');
}

/** What identifies a list item, for an order that depends on it and not on when it was made. */
function itemKey(item: unknown): unknown {
  if (!isPlainObject(item)) return item;
  for (const field of ['id', 'agentId', 'keyId', 'toolCallId', 'seq', 'name']) if (item[field] !== undefined) return [field, item[field], item.sessionId];
  return item;
}

/** A deterministic order unrelated to creation: by a hash of each item's id. */
export function scramble<T>(items: readonly T[]): T[] {
  return items
    .map((item) => ({ item, key: hashOf(itemKey(item)) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ item }) => item);
}

/** Keys in reverse order at every depth (the order of JSON object keys is not meaningful). */
export function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) out[key] = reverseKeys(value[key]);
  return out;
}

/**
 * Null fields left out ("which response fields may be absent or null: not shown") and an unknown
 * field added to every nested object, except inside free-form values.
 */
function decorateNested(value: unknown, field: string | undefined): unknown {
  if (field !== undefined && OPAQUE_FIELDS.has(field)) return value;
  if (Array.isArray(value)) return value.map((item) => decorateNested(item, undefined));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (inner !== null) out[key] = decorateNested(inner, key);
  out[NESTED_EXTRA_FIELD] = 7;
  return out;
}

export interface Presenter {
  present(rpc: Rpc, body: unknown): unknown;
}

/** The pessimistic reshaping of every `/v1` success body; one per server (it owns the volatile clock). */
export function pessimisticPresenter(): Presenter {
  let lastObservedMs = 0;
  const observedAt = (): string => {
    lastObservedMs = Math.max(Date.now(), lastObservedMs + 1);
    return new Date(lastObservedMs).toISOString();
  };
  const record = (rpc: Rpc, value: unknown): unknown => {
    if (!isPlainObject(value)) return value;
    const shown: Record<string, unknown> = { ...value };
    if (rpc.startsWith('providers.') && shown.baseUrl === null && typeof shown.type === 'string') shown.baseUrl = vendorBaseUrl(shown.type);
    // Connection auth fields other than `type` are write-only: none is ever echoed.
    if (isPlainObject(shown.auth) && typeof shown.auth.type === 'string') shown.auth = { type: shown.auth.type };
    const out = decorateNested(shown, undefined) as Record<string, unknown>;
    delete out[NESTED_EXTRA_FIELD];
    out[RECORD_EXTRA_FIELD] = 'local-1';
    out[VOLATILE_FIELD] = observedAt();
    if ((rpc === 'agents.list' || rpc === 'agents.get') && isPlainObject(out.definition) && isPlainObject(out.definition.model))
      out.definition.model[NESTED_VOLATILE_FIELD] = observedAt();
    return out;
  };
  return {
    present(rpc, body) {
      let shaped: unknown;
      if (Array.isArray(body)) shaped = scramble(body).map((item) => record(rpc, item));
      else if (isPlainObject(body) && NESTED_LISTS[rpc] !== undefined && Array.isArray(body[NESTED_LISTS[rpc]!])) {
        const field = NESTED_LISTS[rpc]!;
        shaped = { ...body, [field]: scramble(body[field] as unknown[]).map((item) => record(rpc, item)) };
      } else if (isPlainObject(body) && rpc === 'apiKeys.create') shaped = { ...body, key: record(rpc, body.key) };
      else shaped = record(rpc, body);
      return reverseKeys(shaped);
    },
  };
}
