// computePlan: desired + actual → Plan. Pure and synchronous; everything is indexed by address so
// that the work is linear in the number of resources.
import type {
  ActualResource,
  ActualState,
  DesiredResource,
  DesiredState,
  FieldChange,
  JsonObject,
  Plan,
  ResourceAddress,
  ResourceChange,
  ResourceKind,
} from '../model/resources.js';
import { RESOURCE_KINDS, addressOf } from '../model/resources.js';
import { baseKeyName, tokenFileReplaceReason } from './api-key-files.js';
import { diffSpec, resetFields, specAsFields } from './diff.js';
import { keptFields } from './kept.js';
import { PlanError } from './errors.js';
import { buildGraph } from './graph.js';
import { remoteFingerprint } from './remote-fingerprint.js';
import { immutableFieldsOf, rulesFor } from './rules.js';

export interface PlanOptions {
  prune: boolean;
  /**
   * With prune, also revoke API keys the configuration does not declare. Off, they are left
   * alone like any unmanaged resource: CI's own keys are usually made by hand, and which of them
   * a run authenticates with must not change what the plan does (a plan made with a read key is
   * applied with a control key).
   */
  pruneApiKeys?: boolean;
  allowMassDelete?: boolean;
  /** Refuse a prune that deletes more than this share of the environment's resources (default 0.5). */
  maxDeleteShare?: number;
  /** Limit the plan to these addresses plus what they (transitively) depend on. */
  targets?: ResourceAddress[];
  /**
   * A plan that is only read (drift): replacing a protected resource is planned with a warning
   * instead of refused, since nothing is written and the difference is what is asked for.
   */
  reportProtected?: boolean;
  /** The live state is what owns:, forget: and --exclude leave: the mass-delete guard says so. */
  scoped?: boolean;
  /**
   * The base configuration the change is compared with (`--base`): a declared resource that exists
   * live but is not declared in it plans as `adopt`, not as an update or a no-op.
   */
  adoption?: AdoptionBase;
}

export interface AdoptionBase {
  /** How the base was named (`origin/main`, a directory), for the reason shown. */
  label: string;
  /** The addresses the base configuration declares for this environment. */
  declared: ReadonlySet<ResourceAddress>;
}

export const DEFAULT_MAX_DELETE_SHARE = 0.5;

/** The containers the plan runs in: compared and updated, never deleted or listed as unmanaged. */
const CONTAINER_KINDS: ReadonlySet<ResourceKind> = new Set(['organization', 'environment']);

/** Which kind a list/get operation reads, to know what a missing read operation leaves unplanned. */
const KIND_OF_READ: Readonly<Record<string, ResourceKind>> = {
  'organizations.get': 'organization',
  'environments.get': 'environment',
  'secrets.list': 'secret',
  'providers.list': 'provider',
  'connections.list': 'connection',
  'connections.grants.list': 'grant',
  'agents.list': 'agent',
  'apiKeys.list': 'apiKey',
};

const KIND_RANK = new Map<ResourceKind, number>(RESOURCE_KINDS.map((kind, index) => [kind, index]));

export function computePlan(desired: DesiredState, actual: ActualState, options: PlanOptions): Plan {
  const warnings: string[] = [];
  const unreadable = new Set<ResourceKind>();
  for (const missing of actual.missingOperations) {
    const kind = KIND_OF_READ[missing.rpc];
    if (kind) unreadable.add(kind);
    warnings.push(`the server does not offer ${missing.rpc}: ${missing.consequence}`);
  }

  const desiredByAddress = new Map<ResourceAddress, DesiredResource>();
  for (const resource of desired.resources) {
    const address = addressOf(resource.kind, resource.name);
    if (desiredByAddress.has(address)) throw new PlanError(`${address} is declared twice`);
    desiredByAddress.set(address, resource);
  }
  const actualByAddress = new Map<ResourceAddress, ActualResource>();
  for (const resource of actual.resources) actualByAddress.set(addressOf(resource.kind, resource.name), resource);

  const graph = buildGraph(desired.resources);
  const inScope = targetScope(options.targets, graph.edges, actualByAddress);

  const changes: ResourceChange[] = [];
  for (const address of graph.order) {
    if (inScope && !inScope.has(address)) continue;
    const resource = desiredByAddress.get(address)!;
    if (unreadable.has(resource.kind)) continue;
    const remote = actualByAddress.get(address);
    const change = changeFor(resource, address, remote, graph.edges.get(address) ?? [], warnings, options.reportProtected === true);
    // The containers the plan runs in are the environment's, not the project's: never adopted.
    const adopts = remote !== undefined && options.adoption !== undefined && !CONTAINER_KINDS.has(resource.kind) && !options.adoption.declared.has(address);
    changes.push(adopts ? adopted(change, options.adoption!, Object.keys(resource.writeOnly)) : change);
  }

  const deletes: ResourceChange[] = [];
  const unmanaged: ResourceChange[] = [];
  const duplicates: ResourceChange[] = [];
  for (const [address, remote] of actualByAddress) {
    if (desiredByAddress.has(address) || CONTAINER_KINDS.has(remote.kind)) continue;
    const duplicateOf = duplicateKeyOf(remote, desiredByAddress);
    if (inScope && !inScope.has(address) && !(duplicateOf && inScope.has(duplicateOf))) continue;
    if (duplicateOf && !unreadable.has('apiKey')) {
      const kept = desiredByAddress.get(duplicateOf)!;
      if (kept.protect) {
        warnings.push(
          `${address} is a second live key named ${kept.name}; ${duplicateOf} is protected, so neither is revoked: revoke the one not in use (agentform keys revoke ${remote.id})`,
        );
      } else {
        duplicates.push({
          address,
          kind: remote.kind,
          name: remote.name,
          action: 'delete',
          fields: [],
          dependsOn: [],
          id: remote.id,
          remoteFingerprint: remote.fingerprint,
          reason: `a second live key named ${kept.name} (two applies at once, or a replace whose revoke failed): revoked; ${duplicateOf} keeps the one whose token its token file holds, else the newest`,
        });
      }
      continue;
    }
    const keptKey = options.prune && remote.kind === 'apiKey' && options.pruneApiKeys !== true;
    const prune = options.prune && !keptKey;
    // The fingerprint read through, as for no-op changes: a plan that lists an unmanaged resource
    // (the CI's own keys, in every plan) need not hash it.
    const change = readsRemoteFingerprint(
      { address, kind: remote.kind, name: remote.name, action: prune ? 'delete' : 'unmanaged', fields: [], dependsOn: [], id: remote.id },
      remote,
    );
    if (keptKey) change.reason = 'API keys are revoked only with pruneApiKeys: true';
    (prune ? deletes : unmanaged).push(change);
  }
  // Deletes run in reverse dependency order: later kinds first.
  const byName = (a: ResourceChange, b: ResourceChange) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  deletes.sort((a, b) => KIND_RANK.get(b.kind)! - KIND_RANK.get(a.kind)! || byName(a, b));
  unmanaged.sort((a, b) => KIND_RANK.get(a.kind)! - KIND_RANK.get(b.kind)! || byName(a, b));

  if (options.prune && !options.allowMassDelete)
    guardMassDelete(deletes, actual.resources, options.maxDeleteShare ?? DEFAULT_MAX_DELETE_SHARE, options.scoped === true);
  // Revoking a duplicate key is converging to the configuration (one key per declared name), not
  // a prune: it happens without --prune and does not count against the mass-delete guard.
  deletes.push(...duplicates.sort(byName));

  const all = [...changes, ...deletes, ...unmanaged];
  const summary = { add: 0, change: 0, adopt: 0, replace: 0, destroy: 0, unmanaged: 0 };
  for (const change of all) {
    if (change.action === 'create') summary.add++;
    else if (change.action === 'update') summary.change++;
    else if (change.action === 'adopt') summary.adopt++;
    else if (change.action === 'replace') summary.replace++;
    else if (change.action === 'delete') summary.destroy++;
    else if (change.action === 'unmanaged') summary.unmanaged++;
  }
  const order = [...changes.filter((change) => change.action !== 'no-op').map((change) => change.address), ...deletes.map((change) => change.address)];
  return { formatVersion: 1, environment: desired.target.name, changes: all, order, summary, warnings };
}

/** The targets plus everything they depend on, or undefined for "everything". */
function targetScope(
  targets: ResourceAddress[] | undefined,
  edges: Map<ResourceAddress, ResourceAddress[]>,
  actual: Map<ResourceAddress, ActualResource>,
): Set<ResourceAddress> | undefined {
  if (!targets || targets.length === 0) return undefined;
  const scope = new Set<ResourceAddress>();
  const pending: ResourceAddress[] = [];
  for (const target of targets) {
    if (!edges.has(target) && !actual.has(target)) {
      throw new PlanError(
        `--target ${target}: no such resource in the configuration or the environment`,
        'addresses look like agent/support-bot or grant/github:user:alice',
      );
    }
    pending.push(target);
  }
  while (pending.length > 0) {
    const address = pending.pop()!;
    if (scope.has(address)) continue;
    scope.add(address);
    for (const dep of edges.get(address) ?? []) pending.push(dep);
  }
  return scope;
}

function changeFor(
  resource: DesiredResource,
  address: ResourceAddress,
  remote: ActualResource | undefined,
  dependsOn: ResourceAddress[],
  warnings: string[],
  reportProtected: boolean,
): ResourceChange {
  const reasons: string[] = [];
  if (resource.promotion) reasons.push(`promoted from ${resource.promotion.fromEnvironment} v${resource.promotion.version}`);
  const writeOnlyPaths = Object.keys(resource.writeOnly);

  if (!remote) {
    const fields = [...specAsFields(resource.spec), ...writeOnlyPaths.map((path): FieldChange => ({ path, writeOnly: true }))];
    return withReason({ address, kind: resource.kind, name: resource.name, action: 'create', fields, dependsOn: [...dependsOn] }, reasons);
  }
  const base = readsRemoteFingerprint(
    {
      address,
      kind: resource.kind,
      name: resource.name,
      action: 'no-op',
      fields: [],
      dependsOn: [...dependsOn],
      id: remote.id,
    },
    remote,
    resource.spec,
  );

  const fields = diffSpec(resource.spec, remote.spec, rulesFor(resource.kind));
  for (const immutable of immutableFieldsOf(resource.kind)) {
    const change = fields.find((field) => field.path === immutable || field.path.startsWith(`${immutable}.`));
    if (change) {
      throw new PlanError(
        `${address}: ${immutable} cannot change (remote ${JSON.stringify(change.before ?? null)}, configuration ${JSON.stringify(change.after ?? null)})`,
        `set ${immutable} back to ${JSON.stringify(change.before ?? null)}, or create a new ${resource.kind} under another name`,
      );
    }
  }

  const kept = keptFields(resource.kind, resource.spec, remote.spec);
  if (kept.length > 0) base.kept = kept;

  const rotated = writeOnlyPaths.filter((path) => isRotated(resource, path, remote, address, warnings));
  for (const path of rotated) {
    reasons.push(`rotation marker ${resource.writeOnly[path]!.rotatedAt} of ${path} is newer than the last write (${String(remote.remote.updatedAt)})`);
  }
  const tokenReason = resource.kind === 'apiKey' ? tokenFileReplaceReason(resource) : undefined;
  if (tokenReason && resource.protect) {
    warnings.push(`${address}: ${tokenReason}; it is protected, so it is not replaced`);
  } else if (tokenReason && !fields.some((field) => field.forcesReplace)) {
    // A live key whose token nobody has is as good as none: a new key (and token file) replaces it.
    return withReason(becomes(base, 'replace', [...fields, ...resetFields(resource.spec, remote.spec)]), [...reasons, tokenReason]);
  } else if (tokenReason) {
    reasons.push(tokenReason);
  }
  // Fields left to the server (null) never make a change on their own: no perpetual diff, whatever
  // the server's default.
  if (fields.length === 0 && rotated.length === 0) return withReason(base, reasons);
  // Every update sends the write-only values again (they cannot be compared, and update bodies carry
  // them); fields left to the server are reset to its default by this write, so they are listed too.
  const allFields = [...fields, ...resetFields(resource.spec, remote.spec), ...writeOnlyPaths.map((path): FieldChange => ({ path, writeOnly: true }))];

  const replacing = fields.filter((field) => field.forcesReplace);
  if (replacing.length > 0) {
    if (resource.protect && reportProtected) {
      warnings.push(
        `${address} is protected: a plan that writes refuses to replace it (${replacing.map((field) => field.path).join(', ')} cannot change in place)`,
      );
    } else if (resource.protect) {
      throw new PlanError(
        `${address} is protected and would be replaced: ${replacing.map((field) => field.path).join(', ')} cannot change in place`,
        `revert the change, or remove protect: true from ${address} (or the protect: entry of agentform.yaml that matches it) to allow the replace`,
        resource.location,
      );
    }
    reasons.push(`${replacing.map((field) => field.path).join(', ')} cannot be updated in place`);
    return withReason(becomes(base, 'replace', allFields), reasons);
  }
  return withReason(becomes(base, 'update', allFields), reasons);
}

/**
 * `base` (made by changeFor, nobody else's) turned into an update or a replace, in place: a copy
 * (`{ ...base }`) would read `remoteFingerprint` through its getter, hashing every changed
 * resource's remote object (and loading node:crypto) in a plan that never needs them.
 */
function becomes(base: ResourceChange, action: 'update' | 'replace', fields: FieldChange[]): ResourceChange {
  base.action = action;
  base.fields = fields;
  return base;
}

/**
 * A change to a live resource the base configuration did not declare, made visible: a no-op or an
 * update becomes `adopt` (same fields), a replace keeps its action and says it adopts. The
 * write-only values are sent (as an update sends them): whatever the live copy holds cannot be
 * compared, and after the takeover the configuration's values are the ones in force.
 */
function adopted(change: ResourceChange, base: AdoptionBase, writeOnlyPaths: readonly string[]): ResourceChange {
  const reasons = [`exists live but is not declared in ${base.label}: this change takes it over`];
  if (change.action === 'no-op' || change.action === 'update') change.action = 'adopt';
  for (const path of writeOnlyPaths) {
    if (!change.fields.some((field) => field.path === path && field.writeOnly)) change.fields.push({ path, writeOnly: true });
  }
  if (change.reason) reasons.push(change.reason);
  change.reason = reasons.join('; ');
  return change;
}

/** For `apiKey/ci#key_7` when `apiKey/ci` is declared: `apiKey/ci`. */
function duplicateKeyOf(remote: ActualResource, desired: ReadonlyMap<ResourceAddress, DesiredResource>): ResourceAddress | undefined {
  if (remote.kind !== 'apiKey') return undefined;
  const base = baseKeyName(remote);
  if (base === remote.name) return undefined;
  const address = addressOf('apiKey', base);
  return desired.has(address) ? address : undefined;
}

function isRotated(resource: DesiredResource, path: string, remote: ActualResource, address: ResourceAddress, warnings: string[]): boolean {
  const rotatedAt = resource.writeOnly[path]?.rotatedAt;
  if (rotatedAt === undefined) return false;
  const marker = Date.parse(rotatedAt);
  const updatedAtValue = remote.remote.updatedAt;
  const lastWrite = typeof updatedAtValue === 'string' ? Date.parse(updatedAtValue) : Number.NaN;
  if (Number.isNaN(marker)) {
    warnings.push(`${address}: rotation marker ${JSON.stringify(rotatedAt)} of ${path} is not a date; ignored`);
    return false;
  }
  if (Number.isNaN(lastWrite)) {
    warnings.push(`${address}: the server does not report when ${path} was last written, so its rotation marker cannot be honoured`);
    return false;
  }
  return marker > lastWrite;
}

// A change's remote resource and the configuration's spec for it (undefined for a resource it does
// not declare), hidden (symbol keys, not enumerable): JSON and spreads see only `remoteFingerprint`,
// read through them.
const REMOTE = Symbol('remote');
const CONFIGURED = Symbol('configured');

/**
 * One getter for every change, reading what is kept on the change: a no-op change never needs the
 * fingerprint (apply compares it only before a write). Not a getter closing over each change's own
 * `remote` (in the literal or by defineProperty): V8 keeps an object's accessors in its shape, so
 * that gave every change a hidden class of its own, more memory per resource of a plan.
 */
const REMOTE_FINGERPRINT: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: { [REMOTE]: ActualResource; [CONFIGURED]: JsonObject | undefined }): string {
    const configured = this[CONFIGURED];
    // Without a configuration, the resource's own fingerprint (computed once, state/normalize.ts).
    return configured === undefined ? this[REMOTE].fingerprint : remoteFingerprint(this[REMOTE], configured);
  },
};

/** `change` with `remoteFingerprint` read through from `remote` (defined here: after `id`, as the key order of JSON was). */
function readsRemoteFingerprint(change: ResourceChange, remote: ActualResource, configured?: JsonObject): ResourceChange {
  Object.defineProperty(change, REMOTE, { value: remote });
  Object.defineProperty(change, CONFIGURED, { value: configured });
  return Object.defineProperty(change, 'remoteFingerprint', REMOTE_FINGERPRINT);
}

function withReason(change: ResourceChange, reasons: string[]): ResourceChange {
  if (reasons.length > 0) change.reason = reasons.join('; ');
  return change;
}

/** With prune: refuse to empty a kind (of ≥ 2) or delete more than `maxShare` of the environment. */
/** Under a scope the shares are of what the plan may touch, not of the whole environment. */
const LEFT_OUT = 'owns:, forget: and --exclude leave the rest of the environment out';

function guardMassDelete(deletes: ResourceChange[], remote: ActualResource[], maxShare: number, scoped: boolean): void {
  if (deletes.length < 2) return;
  const remoteByKind = new Map<ResourceKind, number>();
  let total = 0;
  for (const resource of remote) {
    if (CONTAINER_KINDS.has(resource.kind)) continue;
    remoteByKind.set(resource.kind, (remoteByKind.get(resource.kind) ?? 0) + 1);
    total++;
  }
  const deletesByKind = new Map<ResourceKind, number>();
  for (const change of deletes) deletesByKind.set(change.kind, (deletesByKind.get(change.kind) ?? 0) + 1);
  const hint = 'check that the configuration and environment are the ones you meant; if this is intended, pass --allow-mass-delete';
  for (const [kind, count] of deletesByKind) {
    const existing = remoteByKind.get(kind) ?? 0;
    if (existing >= 2 && count === existing) {
      const what = scoped
        ? `every ${kind} this plan may touch (${count} of ${existing}; ${LEFT_OUT})`
        : `every ${kind} in the environment (${count} of ${existing})`;
      throw new PlanError(`refusing to delete ${what} without --allow-mass-delete`, hint);
    }
  }
  if (total > 0 && deletes.length / total > maxShare) {
    throw new PlanError(
      `refusing to delete ${deletes.length} of the ${total} resources ${scoped ? 'this plan may touch' : 'in the environment'} (more than ${Math.round(maxShare * 100)}%${scoped ? `; ${LEFT_OUT}` : ''}) without --allow-mass-delete`,
      hint,
    );
  }
}
