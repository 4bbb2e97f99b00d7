// Wire shapes of the Agent Hosting Control API.
// Field names follow ../shared/spec/control-api.md exactly; fields the spec does not show but the
// project assumes are marked `@assumed` (the full list of assumptions lives in src/api/operations.ts).
// Every response field is optional because the spec does not say which may be absent.

export type Scope = 'read' | 'control';

export interface SpendCaps {
  agentMinutesPerMonth?: number;
  tokensPerMonth?: number;
  dailyUsd?: number;
}

export interface Identity {
  scope: string;
  id: string;
  display?: string;
  attributes?: Record<string, unknown>;
}

export interface ApiKey {
  id: string;
  environmentId?: string;
  name: string;
  prefix?: string;
  scopes: string[];
  identityScopes?: string[];
  spend?: SpendCaps;
  createdBy?: string;
  expiresAt?: string | null;
  lastUsedAt?: string | null;
  revokedAt?: string | null;
  createdAt?: string;
}

export interface ModelRef {
  provider: string;
  model: string;
  reasoning?: string;
}

export interface AgentTool {
  type: string;
  name: string;
  [extra: string]: unknown;
}

/** The agent definition as the spec's table lists it. Every field beyond the minimal upsert is optional. */
export interface AgentDefinition {
  name: string;
  description?: string;
  model: ModelRef & {
    fallback?: { models?: ModelRef[]; on?: string[]; timeoutMs?: number };
    caching?: {
      mode?: string;
      ttl?: string;
      keepWarm?: { enabled?: boolean; idleAfterMinutes?: number; maxConcurrentPrefixes?: number; spendCapUsdPerDay?: number };
    };
  };
  system: string;
  tools: AgentTool[];
  toolLoading?: { mode?: string; autoThreshold?: number };
  policies: {
    toolCalls?: {
      hook?: { connection: string };
      default?: string;
      byTool?: Record<string, string>;
      onError?: string;
      onTimeout?: string;
      timeoutMs?: number;
    };
    decisions?: { expiresInSeconds?: number; onExpire?: string };
  };
  limits: { maxTurns?: number; maxInputTokensPerSession?: number };
  compaction?: {
    mode?: string;
    thresholdPercent?: number;
    contextTokens?: number;
    reserveOutputTokens?: number;
    prompt?: string;
    model?: ModelRef;
    keepRecentMessages?: number;
    preserve?: string[];
    dropToolResultsAfterTokens?: number;
  };
  overrides?: { model?: boolean; reasoning?: boolean; system?: string; compaction?: boolean; sandbox?: boolean };
  subagents?: Array<{ kind: string; name: string; description?: string; agent: string; version?: number }>;
  subagentPolicy?: {
    selfDelegation?: boolean;
    maxDepth?: number;
    maxConcurrent?: number;
    maxTotalPerSession?: number;
    childInputTokenBudget?: number;
  };
  sandbox?: {
    provider?: string;
    connectionName?: string;
    image?: { base?: string; steps?: string[]; secrets?: string[] };
    resources?: { cpu?: number; memoryMb?: number };
    network?: { egress?: { mode?: string } };
    idleTimeoutMs?: number;
    preview?: { enabled?: boolean; auth?: string };
    scope?: string;
    tools?: { preset?: string; allow?: string[]; deny?: string[] };
    serializeTools?: boolean;
    lifecycle?: {
      idleAfterMs?: number;
      onIdle?: string;
      snapshotEveryMs?: number;
      keepSnapshots?: number;
      resume?: string;
      maxSnapshotAgeMs?: number;
    };
  };
  identity?: { required?: boolean; switchable?: boolean; scopesAllowed?: string[] };
}

export interface PromotedFrom {
  environmentId: string;
  agentId: string;
  version: number;
}

export interface AgentImage {
  status?: string;
  ref?: string;
  specHash?: string;
  bakedAt?: string;
  error?: string;
}

export interface AgentVersion {
  agentId: string;
  version: number;
  definition: AgentDefinition;
  createdAt?: string;
  image?: AgentImage;
  promotedFrom?: PromotedFrom | null;
}

/** @assumed agents.list / agents.get add the slug the agent was upserted under. */
export interface AgentVersionWithSlug extends AgentVersion {
  slug: string;
}

export interface RetentionDays {
  sessionEventsDays?: number;
  deliveredHooksDays?: number;
  deadHooksDays?: number;
  spansDays?: number;
  usageRollupDays?: number;
}

export interface Environment {
  id: string;
  organizationId?: string;
  slug: string;
  name?: string;
  kind?: string;
  group?: string;
  expiresAt?: string | null;
  createdBy?: string;
  createdAt?: string;
  updatedAt?: string;
  archivedAt?: string | null;
  spend?: SpendCaps;
  retention?: RetentionDays;
}

export interface Organization {
  id: string;
  slug: string;
  name: string;
  idpOrganizationId?: string | null;
  createdAt?: string;
  updatedAt?: string;
}

export interface SandboxSnapshot {
  id: string;
  sandboxId: string;
  ref?: string;
  createdAt?: string;
  provider?: string;
  reason?: string;
}

export interface Sandbox {
  id: string;
  state: string;
  provider?: string;
  ownerSessionId?: string;
  rootSessionId?: string;
  externalId?: string;
  imageRef?: string;
  snapshotRef?: string;
  lastActivityAt?: string;
  idleSince?: string | null;
  snapshotAt?: string | null;
  destroyedAt?: string | null;
  createdAt?: string;
  error?: string | null;
  snapshots?: SandboxSnapshot[];
}

export interface ConnectionAuth {
  type: string;
  [extra: string]: unknown;
}

export interface Connection {
  id: string;
  name: string;
  url?: string;
  channel?: string;
  hooksUrl?: string | null;
  transport?: string;
  auth: ConnectionAuth;
  hookEvents?: string[];
  createdAt?: string;
  updatedAt?: string;
}

export interface ConnectionGrant {
  id: string;
  connectionId: string;
  connection?: string;
  identity: Identity;
  resource?: string;
  issuer?: string;
  scopes?: string[];
  status?: string;
  error?: string | null;
  hasRefreshToken?: boolean;
  expiresAt?: string | null;
  createdAt?: string;
  updatedAt?: string;
  lastUsedAt?: string | null;
}

export interface HookDelivery {
  id: string;
  sessionId: string;
  connectionId: string;
  connectionName?: string;
  eventSeq: number;
  eventType: string;
  status: string;
  attempts: number;
  nextAttemptAt?: string | null;
  createdAt?: string;
  deliveredAt?: string | null;
  lastError?: string | null;
  payload?: unknown;
}

export interface ToolDescriptor {
  name: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

export interface PendingToolCall {
  toolCallId: string;
  name: string;
  connection?: string;
  prompt?: string;
  channel?: string;
  parentToolCallId?: string | null;
  input?: unknown;
  requestedBy?: string;
  requestedAt?: string;
  expiresAt?: string;
}

export interface ModelProvider {
  id: string;
  name: string;
  type: string;
  baseUrl?: string | null;
  hasSecret?: boolean;
  createdAt?: string;
  updatedAt?: string;
}

export interface Model {
  id: string;
  ownedBy?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
}

export interface SessionEvent {
  seq: number;
  sessionId: string;
  at: string;
  type: string;
  agentVersion?: number;
  identity?: Identity;
}

export interface UsageTotals {
  activeSeconds: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cacheReportingCalls: number;
  serverToolRequests: number;
  turns: number;
  modelCalls: number;
  toolCalls: number;
  costUsd: number;
  unpricedCalls: number;
}

/** The fields of UsageTotals, for the code that sums, checks or validates them (client and server). */
export const USAGE_FIELDS = [
  'activeSeconds',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'cacheReportingCalls',
  'serverToolRequests',
  'turns',
  'modelCalls',
  'toolCalls',
  'costUsd',
  'unpricedCalls',
] as const satisfies ReadonlyArray<keyof UsageTotals>;

export interface KeyUsageRow {
  keyId: string;
  name: string;
  prefix?: string;
  spend?: SpendCaps;
  revoked?: boolean;
  totals: UsageTotals;
}

export interface GrantImportResult {
  identity: Identity;
  outcome: string;
  grantId?: string | null;
  error?: string | null;
}

/** @assumed secrets.* are not shown in the spec; metadata only, never the value. */
export interface SecretMetadata {
  id: string;
  name: string;
  createdAt?: string;
  updatedAt?: string;
}
