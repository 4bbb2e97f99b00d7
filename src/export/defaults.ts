// What the exporter leaves out: values a server fills in when a request leaves the field out.
// Exported files should read like what a person writes, so a field equal to its default is
// dropped. Dropping can never make the following plan show a change (the plan compares only the
// fields the configuration writes); a default missing here only makes the export more verbose.
//
// Two sources, by field pattern (array indices written `[]`):
// - the engine's SERVER_DEFAULTS (the values api-contract.md names), and
// - the local control plane's defaults table (src/server/defaults.ts), mirrored here so that the
//   exporter stays a pure module that does not load the server. test/export/defaults.test.ts
//   checks this mirror against the server's table, so the two cannot drift apart silently.
import { SERVER_DEFAULTS } from '../engine/server-defaults.js';
import type { JsonValue, ResourceKind } from '../model/resources.js';

const LOCAL_CONTROL_PLANE_DEFAULTS: { readonly [K in ResourceKind]?: Readonly<Record<string, JsonValue>> } = {
  agent: {
    description: '',
    'model.reasoning': 'none',
    'toolLoading.mode': 'eager',
    'toolLoading.autoThreshold': 20,
    'policies.toolCalls.default': 'allow',
    'policies.toolCalls.byTool': {},
    'policies.toolCalls.onError': 'allow',
    'policies.toolCalls.onTimeout': 'allow',
    'policies.toolCalls.timeoutMs': 30_000,
    'policies.decisions.expiresInSeconds': 300,
    'policies.decisions.onExpire': 'deny',
    'limits.maxTurns': 100,
    'limits.maxInputTokensPerSession': 2_000_000,
    'compaction.mode': 'auto',
    'compaction.thresholdPercent': 80,
    'compaction.reserveOutputTokens': 8_192,
    'compaction.keepRecentMessages': 10,
    'compaction.preserve': ['tool_results'],
    'overrides.model': false,
    'overrides.reasoning': false,
    'overrides.system': 'none',
    'overrides.compaction': false,
    'overrides.sandbox': false,
    subagents: [],
    'subagentPolicy.selfDelegation': false,
    'subagentPolicy.maxDepth': 2,
    'subagentPolicy.maxConcurrent': 4,
    'subagentPolicy.maxTotalPerSession': 16,
    'subagentPolicy.childInputTokenBudget': 200_000,
    'identity.required': false,
    'identity.switchable': false,
    'identity.scopesAllowed': [],
    'sandbox.image.steps': [],
    'sandbox.image.secrets': [],
    'sandbox.resources.cpu': 1,
    'sandbox.resources.memoryMb': 2_048,
    'sandbox.network.egress.mode': 'unrestricted',
    'sandbox.idleTimeoutMs': 600_000,
    'sandbox.preview.enabled': false,
    'sandbox.preview.auth': 'signed-url',
    'sandbox.scope': 'tree',
    'sandbox.tools.preset': 'read-only',
    'sandbox.tools.allow': [],
    'sandbox.tools.deny': [],
    'sandbox.serializeTools': false,
    'sandbox.lifecycle.idleAfterMs': 300_000,
    'sandbox.lifecycle.onIdle': 'release',
    'sandbox.lifecycle.snapshotEveryMs': 900_000,
    'sandbox.lifecycle.keepSnapshots': 3,
    'sandbox.lifecycle.resume': 'snapshot',
    'sandbox.lifecycle.maxSnapshotAgeMs': 604_800_000,
  },
  connection: { transport: 'streamable-http', channel: 'default', hooksUrl: null, hookEvents: [] },
  environment: {
    kind: 'development',
    expiresAt: null,
    spend: {},
    'retention.sessionEventsDays': 30,
    'retention.deliveredHooksDays': 7,
    'retention.deadHooksDays': 30,
    'retention.spansDays': 14,
    'retention.usageRollupDays': 400,
  },
  apiKey: { identityScopes: [], spend: {}, expiresAt: null },
  provider: { baseUrl: null },
};

/** Default values by field pattern for one kind: the engine's table, then the local control plane's. */
export function exportDefaultsFor(kind: ResourceKind): Readonly<Record<string, JsonValue>> {
  return { ...LOCAL_CONTROL_PLANE_DEFAULTS[kind], ...SERVER_DEFAULTS[kind] };
}

/**
 * Objects whose mere presence means something even when every field in them is a default: an
 * agent with `sandbox: {}` gets a sandbox, one without gets none. Other objects that end up
 * empty after dropping defaults are dropped too.
 */
export const PRESENCE_MATTERS: { readonly [K in ResourceKind]?: ReadonlySet<string> } = {
  agent: new Set(['sandbox']),
};

/**
 * Fields of the API's minimal request that are written even when they hold the default: the
 * minimal agent definition has `tools`, `policies` and `limits`, and a server may refuse an upsert
 * without them, so an export that left them out could not be applied to a new environment.
 */
export const ALWAYS_WRITTEN: { readonly [K in ResourceKind]?: Readonly<Record<string, JsonValue>> } = {
  agent: { tools: [], policies: {}, limits: {} },
};
