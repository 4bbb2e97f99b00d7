// Values a server is known to fill in when a request leaves a field out, per kind, by field pattern
// (array indices written `[]`). They mirror the values named in api-contract.md / control-api.md.
//
// DISPLAY ONLY. The plan's correctness never depends on this table: fields the configuration does
// not mention are not compared and keep their remote value, and `null` ("left to the server") is
// never compared, so a server with other defaults gives no perpetual diff either way. The one use
// left is keeping the plan's "kept, not in configuration" list (kept.ts) short: a remote value
// equal to a default here is not worth a reviewer's attention. A wrong entry can only hide such an
// informational line, never a change.
import type { JsonValue, ResourceKind } from '../model/resources.js';

export const SERVER_DEFAULTS: { readonly [K in ResourceKind]: Readonly<Record<string, JsonValue>> } = {
  organization: {},
  environment: {},
  secret: {},
  provider: {},
  connection: {
    transport: 'streamable-http',
    hookEvents: [],
    hooksUrl: null,
  },
  grant: {},
  agent: {
    description: '',
    'model.reasoning': 'none',
    'model.fallback.models[].reasoning': 'none',
    'model.caching.mode': 'auto',
    'model.caching.ttl': '5m',
    tools: [],
    'toolLoading.mode': 'eager',
    'policies.toolCalls.default': 'allow',
    'policies.toolCalls.onError': 'allow',
    'policies.toolCalls.onTimeout': 'allow',
    'policies.decisions.onExpire': 'deny',
    'compaction.mode': 'auto',
    'compaction.model.reasoning': 'none',
    'overrides.system': 'none',
    subagents: [],
    'sandbox.network.egress.mode': 'unrestricted',
    'sandbox.preview.auth': 'signed-url',
    'sandbox.scope': 'tree',
    'sandbox.tools.preset': 'read-only',
    'sandbox.lifecycle.onIdle': 'release',
    'sandbox.lifecycle.resume': 'snapshot',
  },
  apiKey: {
    identityScopes: [],
    expiresAt: null,
  },
};
