// Values the server fills in when a request leaves a field out, per kind, by field pattern (array
// indices written `[]`). They mirror the values named in api-contract.md / control-api.md.
//
// Why the engine needs them: the plan compares only the fields the user wrote, but two cases still
// need to know the server's default to avoid a perpetual diff:
// - `field: null` in the configuration means "reset to the server default". It is satisfied when
//   the remote value is absent, null, or equal to the default listed here.
// - a field the user wrote with exactly the default value, that the server leaves out of its
//   answer: absent remotely counts as equal to the default.
// A default missing from this table only costs a reported change that apply then makes; it never
// hides one. Keep this table small and sourced.
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
