// The shared vocabulary between configuration (desired), state (actual), engine (plan) and apply.
// Plain data only: no functions, no classes, so that everything here can be serialised and diffed.
import type { SourceLocation } from '../errors.js';
import type { DerivedToolPolicy } from './tool-lock.js';

/** Resource kinds in dependency order: a kind may only depend on kinds before it. */
export const RESOURCE_KINDS = ['organization', 'environment', 'secret', 'provider', 'connection', 'grant', 'agent', 'apiKey'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** `agent/support-bot`, `grant/github:user:alice`. Unique within one environment. */
export type ResourceAddress = `${ResourceKind}/${string}`;

export function addressOf(kind: ResourceKind, name: string): ResourceAddress {
  return `${kind}/${name}`;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * A write-only value (provider secret, secret value, grant access token, a connection `auth` field
 * other than `type`). The value cannot be read back, so it is never compared. It is sent when the
 * resource is created, with every update of the resource, and when the user's rotation marker `rotatedAt` (an RFC 3339 time or date) is later
 * than the remote object's `updatedAt`: bumping the marker to "now" makes the next plan send the
 * value again. This needs no state file, so it works the same in a fresh CI clone.
 */
export interface WriteOnlyValue {
  /** Where the value came from, for messages: `${env:OPENAI_KEY}`. Never the value. */
  source: string;
  /** The resolved value; absent in saved plans and whenever it is not needed (e.g. plan output). */
  value?: string;
  rotatedAt?: string;
}

/**
 * The write-only path of a connection `auth` field other than `type`: `auth.clientSecret`. The API
 * does not name these fields, so all of them are write-only; the writer puts each back into `auth`.
 */
export const CONNECTION_AUTH_PREFIX = 'auth.';

/** The auth field a connection's write-only path names, or undefined for other paths. */
export function connectionAuthField(path: string): string | undefined {
  return path.startsWith(CONNECTION_AUTH_PREFIX) ? path.slice(CONNECTION_AUTH_PREFIX.length) : undefined;
}

export interface Reference {
  kind: ResourceKind;
  name: string;
  /** Field path in the spec that holds the reference, e.g. `model.provider`. */
  path: string;
}

/**
 * One resource as the configuration wants it in one environment, after overlays and
 * interpolation. `spec` holds only the fields the user wrote, shaped like the API's request body
 * for that kind. A field it does not mention is not managed: apply keeps its remote value. An
 * explicit `null` means "left to the server": never compared, and left out of (or sent as `null`
 * in) a request that writes the resource for another reason, so the server applies its default.
 */
export interface DesiredResource {
  kind: ResourceKind;
  name: string;
  spec: JsonObject;
  /** Write-only values by field path (`secret`, `value`, `accessToken`, `auth.<field>`). */
  writeOnly: Record<string, WriteOnlyValue>;
  /** References to other resources, derived from the spec by the config layer. */
  references: Reference[];
  /** Never delete or replace. */
  protect?: boolean;
  /** Settings for agentform itself, never sent to the API (e.g. an API key's `tokenFile`). */
  options?: JsonObject;
  /** Declarative promotion: this agent is whatever `from` runs at `version`. */
  promotion?: { fromEnvironment: string; version: number };
  /**
   * What the policy rules judge when it is not `spec`: a promoted version that is its source's
   * configuration as applied is judged as that configuration (src/promotion/judged-definition.ts).
   */
  judgedSpec?: JsonObject;
  /** Where it is declared, for messages. */
  location?: SourceLocation;
}

/** Settings of the whole environment, as the root file declares them for one environment. */
export interface EnvironmentTarget {
  /** agentform's name for the environment (the key under `environments:`). */
  name: string;
  /** The environment slug on the server (defaults to `name`). */
  slug: string;
  /** A base URL, or `local` for the embedded local control plane. */
  url: string;
  /** Where the credential comes from, e.g. `${env:AGENTFORM_STAGING_TOKEN}`; the value is resolved late. */
  credential?: WriteOnlyValue;
  prune: boolean;
  /** With prune, also revoke API keys the configuration does not declare (default false). */
  pruneApiKeys?: boolean;
  /** Refuse a plan that deletes more than this share of the environment's resources (0..1). */
  maxDeleteShare?: number;
  /** The largest request body apply may send (bytes); default DEFAULT_MAX_REQUEST_BYTES. */
  maxRequestBytes?: number;
  /** Least privilege from the lock: agents' tool policies are derived from agentform.lock.yaml (engine/strict-tools.ts). */
  strictTools?: boolean;
}

/** Everything the configuration wants for one environment. */
export interface DesiredState {
  projectDir: string;
  target: EnvironmentTarget;
  resources: DesiredResource[];
}

/**
 * One resource as the server reports it, normalised to the same shape as `DesiredResource.spec`
 * (so the engine compares like with like). `remote` keeps the raw object, for ids and fingerprints.
 */
export interface ActualResource {
  kind: ResourceKind;
  name: string;
  id: string;
  spec: JsonObject;
  remote: JsonObject;
  /**
   * The object's id and write marks, hashed (engine/remote-fingerprint.ts without a configuration):
   * "changed since plan" for a resource the configuration does not declare (a delete).
   */
  fingerprint: string;
}

export interface ActualState {
  environmentSlug: string;
  resources: ActualResource[];
  /** Read operations the server did not offer, and what could not be planned because of it. */
  missingOperations: Array<{ rpc: string; consequence: string }>;
}

/**
 * `adopt`: a declared resource that already exists live but was not declared in the base
 * configuration the plan was compared with (`--base`): this change takes it over. Its fields are
 * those of an update (possibly none); apply writes them like an update.
 */
export type ChangeAction = 'create' | 'update' | 'adopt' | 'replace' | 'delete' | 'no-op' | 'unmanaged';

export interface FieldChange {
  /** JSON path of the field: `model.model`, `tools[2].name`. */
  path: string;
  before?: JsonValue;
  after?: JsonValue;
  /** A write-only value is never shown: only that it will be sent. */
  writeOnly?: boolean;
  /** This field cannot change in place; it forces a replace. */
  forcesReplace?: boolean;
  /**
   * The configuration says `null` ("left to the server") and the resource is written for another
   * reason: the field is left out of the request (sent as `null` to update operations), so the
   * server applies its default. `before` is the remote value, `after` is `null`. Such a field never
   * makes a change on its own, and the result may equal `before` when that was the default.
   */
  resetToDefault?: boolean;
  /** Where the value comes from when an AgentTemplate gave it: the template's `file:line:col`. */
  source?: string;
}

/** A remote value the configuration does not manage, shown so that a reviewer sees it; apply keeps it. */
export interface KeptField {
  /** JSON path of the field, as in FieldChange. */
  path: string;
  value: JsonValue;
}

export interface ResourceChange {
  address: ResourceAddress;
  kind: ResourceKind;
  name: string;
  action: ChangeAction;
  /** Field-level changes for update and replace; empty otherwise. */
  fields: FieldChange[];
  /** Addresses this resource depends on (must be applied first). */
  dependsOn: ResourceAddress[];
  /** Remote id, when the resource exists. */
  id?: string;
  /**
   * What of the remote object the plan was computed from its change depends on (id, write marks,
   * the fields the configuration manages: engine/remote-fingerprint.ts); apply compares it with a
   * fresh read just before writing.
   */
  remoteFingerprint?: string;
  /** Why: e.g. "rotation marker changed", "promoted from staging v3". */
  reason?: string;
  /**
   * Remote values the configuration does not mention that matter for safety (a tool policy, a
   * sandbox, spend caps): not changes, apply keeps them; listed so that a reviewer sees them.
   */
  kept?: KeptField[];
}

export interface Plan {
  formatVersion: 1;
  environment: string;
  changes: ResourceChange[];
  /** Address order in which creates/updates run (deletes run in reverse). */
  order: ResourceAddress[];
  summary: { add: number; change: number; adopt: number; replace: number; destroy: number; unmanaged: number };
  warnings: string[];
  /** What the plan leaves out on purpose (--exclude, owns:, forget:); absent when nothing is. */
  scope?: PlanScope;
  /** Differences an `ignore:` rule leaves alone (engine/ignore.ts); absent when there are none. */
  ignored?: IgnoredDifference[];
  /** The base configuration adoptions were judged against (`--base`); absent: not checked. */
  adoptionBase?: string;
  /** Strict mode (`strictTools`): the tool policy entries derived from the lock, per agent; absent when off. */
  derivedToolPolicies?: DerivedToolPolicy[];
}

/**
 * What a plan leaves out on purpose, and why: resources outside the project's `owns:` patterns,
 * resources matching `--exclude`, and resources the project has forgotten (`forget:`). Recorded in
 * the plan (and so in a saved plan) so that its header says what it does not touch.
 */
/** One resource the plan sets aside: never created, changed or deleted by it. */
export interface SetAsideResource {
  address: ResourceAddress;
  /** forgotten: listed in `forget:`; excluded: matched by --exclude (or depends on what was). */
  as: 'forgotten' | 'excluded';
  reason: string;
}

export interface PlanScope {
  /** The --exclude patterns the plan was made with (a saved plan applies with the same). */
  excludes: string[];
  /** The project's `owns:` patterns; absent: it owns the whole environment. */
  owns?: string[];
  /** Live resources outside `owns:`, left out of the plan (counted, never listed). */
  notOwned: number;
  setAside: SetAsideResource[];
}

/** A live value that differs from the configuration under an `ignore:` rule: not a change, kept by apply. */
export interface IgnoredDifference {
  address: ResourceAddress;
  /** JSON path of the field, as in FieldChange. */
  path: string;
  /** The live value (kept). */
  before?: JsonValue;
  /** The configured value (not written). */
  after?: JsonValue;
  /** The rule, as written: `agent/* system`. */
  rule: string;
  reason: string;
}

/** How many changes a plan makes (unmanaged resources are not changes). */
export function changeCount(plan: Pick<Plan, 'summary'>): number {
  const { add, change, replace, destroy } = plan.summary;
  // Plans saved before adoption existed have no `adopt` count.
  return add + change + (plan.summary.adopt ?? 0) + replace + destroy;
}

/*
 * The shape of `DesiredResource.spec` and `ActualResource.spec` per kind — the API request body
 * for that kind without its identifying fields and without write-only values:
 * - organization: `{name}`; name `organization/current`.
 * - environment: `{name?, kind?, group?, expiresAt?, spend?, retention?}`; name = the slug.
 * - secret: `{}`; write-only `value`.
 * - provider: `{type, baseUrl?}`; write-only `secret`.
 * - connection: `{url?, transport?, channel?, hooksUrl?, hookEvents?, auth: {type}}`; every other
 *   `auth` field, whatever its name, is write-only (`auth.<field>`, see connectionAuthField).
 * - grant: `{connection, identity: {scope, id}}`; name `<connection>:<scope>:<id>`; write-only `accessToken`.
 * - agent: the agent definition (`name`, `model`, `system`, ...); resource name = the slug.
 * - apiKey: `{scopes, identityScopes?, spend?, expiresAt?}`; resource name = the key name.
 */
