// The Control API contract in one place: every operation this project calls, whether the published
// description documents it or this project assumes it, the scope it needs, and how safe it is to
// retry. A deployment that differs from these assumptions is adapted here (and in README).
import type {
  AgentDefinition,
  AgentVersion,
  AgentVersionWithSlug,
  ApiKey,
  Connection,
  ConnectionAuth,
  ConnectionGrant,
  Environment,
  GrantImportResult,
  HookDelivery,
  KeyUsageRow,
  Model,
  ModelProvider,
  Organization,
  PendingToolCall,
  PromotedFrom,
  RetentionDays,
  Sandbox,
  Scope,
  SecretMetadata,
  SessionEvent,
  SpendCaps,
  ToolDescriptor,
} from '../model/api.js';

/**
 * How a retry is allowed:
 * - `read`: no effect, retry blindly.
 * - `idempotent`: repeating it has the same effect as doing it once, retry blindly.
 * - `create`: each success makes a new object; retry only after a read shows the first attempt did
 *   not take effect (see `createRecheck`).
 */
export type RetryClass = 'read' | 'idempotent' | 'create';

export interface OperationInfo {
  /** `documented`: in control-api.md. `assumed`: this project's guess (api-contract.md). */
  status: 'documented' | 'assumed';
  scope: Scope;
  retry: RetryClass;
  /** What is assumed beyond the description, for README and error messages. */
  assumption?: string;
}

export interface ConnectionInput {
  name: string;
  auth: ConnectionAuth;
  /** @assumed optional create/update fields */
  url?: string;
  transport?: string;
  channel?: string;
  hooksUrl?: string | null;
  hookEvents?: string[];
}

export interface EnvironmentSettings {
  name?: string;
  kind?: string;
  group?: string;
  expiresAt?: string | null;
  spend?: SpendCaps;
  retention?: RetentionDays;
}

/** `null` in an update: "reset this field to the server's default" (the local control plane honours it). */
type Resettable<T> = { [K in keyof T]?: T[K] | null };

export interface EnvironmentUpdate {
  name?: string | null;
  kind?: string;
  group?: string | null;
  expiresAt?: string | null;
  spend?: Resettable<SpendCaps> | null;
  retention?: Resettable<RetentionDays> | null;
}

export interface ConnectionUpdate extends Resettable<Omit<ConnectionInput, 'name' | 'auth'>> {
  name?: string;
  auth?: ConnectionAuth;
}

/**
 * The request fields of the writes that apply builds from the remote object with the configured
 * values merged in (besides the id or slug): the assumed update operations (api-contract.md), so the
 * result is right whether the server treats an update as a patch or as a replace, and the create of
 * a replacing API key, which takes over what the configuration does not mention. A nested shape
 * lists the fields known inside an object; `true` takes the value whole. `kind` is not among the
 * environment update fields: it cannot change.
 */
export const MERGED_WRITE_FIELDS = {
  'environments.update': {
    name: true,
    group: true,
    expiresAt: true,
    spend: { agentMinutesPerMonth: true, tokensPerMonth: true, dailyUsd: true },
    retention: { sessionEventsDays: true, deliveredHooksDays: true, deadHooksDays: true, spansDays: true, usageRollupDays: true },
  },
  'providers.update': { type: true, baseUrl: true },
  'connections.update': { url: true, transport: true, channel: true, hooksUrl: true, hookEvents: true, auth: true },
  'apiKeys.create': { scopes: true, identityScopes: true, spend: { agentMinutesPerMonth: true, tokensPerMonth: true, dailyUsd: true }, expiresAt: true },
} as const;

/** Request and response type of every operation, keyed by RPC name. */
export interface Operations {
  'apiKeys.create': {
    request: {
      key: {
        name: string;
        scopes: string[];
        identityScopes?: string[];
        spend?: SpendCaps;
        expiresAt?: string | null;
      };
    };
    response: { key: ApiKey; token: string };
  };
  'apiKeys.revoke': { request: { id: string }; response: ApiKey };
  'apiKeys.list': { request: Record<string, never>; response: ApiKey[] };

  'agents.upsert': {
    request: { slug: string; definition: AgentDefinition; promotedFrom?: PromotedFrom };
    response: AgentVersion;
  };
  'agents.list': { request: Record<string, never>; response: AgentVersionWithSlug[] };
  'agents.get': { request: { slug: string; version?: number }; response: AgentVersionWithSlug };
  'agents.delete': { request: { slug: string }; response: void };

  'environments.get': { request: { slug: string }; response: Environment };
  'environments.list': { request: Record<string, never>; response: Environment[] };
  'environments.create': { request: { slug: string; name: string } & EnvironmentSettings; response: Environment };
  'environments.update': { request: { slug: string } & EnvironmentUpdate; response: Environment };
  'environments.archive': { request: { slug: string }; response: Environment };

  'organizations.get': { request: undefined; response: Organization };
  'organizations.update': { request: { name: string }; response: Organization };

  'sandboxes.list': { request: Record<string, never>; response: Sandbox[] };

  'connections.create': { request: ConnectionInput; response: Connection };
  'connections.list': { request: Record<string, never>; response: Connection[] };
  'connections.update': { request: { id: string } & ConnectionUpdate; response: Connection };
  'connections.delete': { request: { id: string }; response: void };
  'connections.test': { request: { id: string }; response: { tools: ToolDescriptor[] } };
  'connections.grants.import': {
    request: {
      connectionId: string;
      mode: 'skip_existing' | 'overwrite';
      grants: Array<{ identity: { scope: string; id: string }; accessToken: string }>;
    };
    response: { results: GrantImportResult[] };
  };
  'connections.grants.list': { request: Record<string, never>; response: ConnectionGrant[] };
  'connections.grants.delete': { request: { id: string }; response: void };

  'hooks.redeliver': { request: { id: string }; response: HookDelivery };
  'hooks.redeliverAll': { request: Record<string, never>; response: { requeued: number; more: boolean } };

  'sessions.events': { request: { id: string }; response: SessionEvent[] };
  'sessions.pending': { request: { id: string }; response: PendingToolCall[] };

  'providers.create': {
    request: { name: string; type: string; baseUrl?: string | null; secret?: string };
    response: ModelProvider;
  };
  'providers.list': { request: Record<string, never>; response: ModelProvider[] };
  'providers.update': {
    request: { id: string; name?: string; type?: string; baseUrl?: string | null; secret?: string };
    response: ModelProvider;
  };
  'providers.delete': { request: { id: string }; response: void };
  'providers.models': { request: { name: string }; response: Model[] };

  'secrets.create': { request: { name: string; value: string }; response: SecretMetadata };
  'secrets.list': { request: Record<string, never>; response: SecretMetadata[] };
  'secrets.update': { request: { id: string; value: string }; response: SecretMetadata };
  'secrets.delete': { request: { id: string }; response: void };

  'usage.keys': { request: { period: { from: string; to: string } }; response: KeyUsageRow[] };
}

export type Rpc = keyof Operations;
export type RequestOf<R extends Rpc> = Operations[R]['request'];
export type ResponseOf<R extends Rpc> = Operations[R]['response'];

const doc = (scope: Scope, retry: RetryClass, assumption?: string): OperationInfo => ({
  status: 'documented',
  scope,
  retry,
  ...(assumption ? { assumption } : {}),
});
const assumed = (scope: Scope, retry: RetryClass, assumption: string): OperationInfo => ({
  status: 'assumed',
  scope,
  retry,
  assumption,
});

export const OPERATIONS: { readonly [R in Rpc]: OperationInfo } = {
  'apiKeys.create': doc('control', 'create', 'optional key.identityScopes, key.spend, key.expiresAt'),
  'apiKeys.revoke': doc('control', 'idempotent'),
  'apiKeys.list': assumed('read', 'read', 'exists but is not shown; returns ApiKey[]'),

  'agents.upsert': doc('control', 'idempotent', 'optional promotedFrom; an identical definition creates no new version'),
  'agents.list': assumed('read', 'read', 'returns the latest version of each agent, with its slug'),
  'agents.get': assumed('read', 'read', '{slug, version?}; latest version when no version'),
  'agents.delete': assumed('control', 'idempotent', '{slug}; empty response'),

  'environments.get': doc('read', 'read'),
  'environments.list': assumed('read', 'read', 'returns Environment[] of the organization'),
  'environments.create': assumed('control', 'create', '{slug, name, kind?, group?, expiresAt?, spend?, retention?}'),
  'environments.update': assumed('control', 'idempotent', '{slug, name?, group?, expiresAt?, spend?, retention?}'),
  'environments.archive': assumed('control', 'idempotent', '{slug}; sets archivedAt'),

  'organizations.get': doc('read', 'read'),
  'organizations.update': doc('control', 'idempotent'),

  'sandboxes.list': doc('read', 'read'),

  'connections.create': doc(
    'control',
    'create',
    'optional url, transport, channel, hooksUrl, hookEvents, further auth fields (all write-only; only `auth.type` is read back and compared)',
  ),
  'connections.list': assumed('read', 'read', 'returns Connection[]'),
  'connections.update': assumed('control', 'idempotent', '{id, ...the create fields}'),
  'connections.delete': assumed('control', 'idempotent', '{id}; empty response'),
  'connections.test': doc('control', 'read', "returns the MCP tools/list of the server at the connection's url"),
  'connections.grants.import': doc('control', 'idempotent', "mode 'overwrite'; outcomes skipped, updated, failed"),
  'connections.grants.list': doc('read', 'read'),
  'connections.grants.delete': assumed('control', 'idempotent', '{id}; empty response'),

  'hooks.redeliver': doc('control', 'idempotent'),
  'hooks.redeliverAll': doc('control', 'idempotent', 'call again while more is true'),

  'sessions.events': doc('read', 'read'),
  'sessions.pending': doc('read', 'read'),

  'providers.create': doc('control', 'create', 'optional baseUrl and write-only secret'),
  'providers.list': assumed('read', 'read', 'returns ModelProvider[]'),
  'providers.update': assumed('control', 'idempotent', '{id, name?, type?, baseUrl?, secret?}'),
  'providers.delete': assumed('control', 'idempotent', '{id}; empty response'),
  'providers.models': doc('read', 'read'),

  'secrets.create': assumed('control', 'create', 'exists but is not shown; {name, value} → metadata, never the value'),
  'secrets.list': assumed('read', 'read', 'exists but is not shown; metadata only'),
  'secrets.update': assumed('control', 'idempotent', '{id, value} → metadata'),
  'secrets.delete': doc('control', 'idempotent'),

  'usage.keys': doc('read', 'read', 'period values are RFC 3339 timestamps'),
};

export const RPC_NAMES = Object.keys(OPERATIONS) as Rpc[];

/** `connections.grants.import` → `/v1/connections/grants/import`. */
export function operationPath(rpc: Rpc): string {
  return `/v1/${rpc.split('.').join('/')}`;
}

export function isRpc(name: string): name is Rpc {
  return Object.hasOwn(OPERATIONS, name);
}

/**
 * Request fields that carry write-only secrets. Redaction (debug traces, error echoes) and the
 * leak tests are driven by this list.
 */
export const SECRET_FIELD_NAMES = ['authorization', 'cookie', 'token', 'accessToken', 'refreshToken', 'secret', 'value'] as const;

/** Per-call options of `RpcCaller.call`. */
export interface CallOptions<R extends Rpc> {
  /**
   * Asked before a retry of an attempt whose outcome is unknown (lost answer, 5xx, timeout): has the
   * first attempt already taken effect? A response returned here is used instead of sending the
   * request again; undefined means "not applied: send it again". For operations whose repetition is
   * not harmless on every server (e.g. `agents.upsert`, which may make a version per call).
   */
  beforeRetry?: () => Promise<ResponseOf<R> | undefined>;
  /**
   * For `apiKeys.create`: the id of the live key of the same name that the new key replaces (sent
   * as the REPLACES_KEY_HEADER). The local control plane refuses a second live key of a name
   * unless it replaces that one; other servers ignore the header.
   */
  replacesKeyId?: string;
}

/** The request header that carries CallOptions.replacesKeyId. */
export const REPLACES_KEY_HEADER = 'x-agentform-replaces-key';

/** Anything that can call an operation: the HTTP client, or a fake in unit tests. */
export interface RpcCaller {
  call<R extends Rpc>(rpc: R, request: RequestOf<R>, options?: CallOptions<R>): Promise<ResponseOf<R>>;
}
