// Runs a Plan: creates and updates in dependency order, deletes after everything that could still
// reference them, concurrently up to `parallelism`, re-reading each resource just before it is
// updated or deleted so that a concurrent edit is never overwritten: the write goes ahead only when
// what the plan depends on is unchanged (engine/remote-fingerprint.ts), and merges the
// configuration onto that fresh read, so fields the configuration does not set keep the value the
// server has now (a server-owned field that changes on every read included).
import { ApiError, UserError } from '../errors.js';
import type { ActualResource, ActualState, DesiredState, Plan, ResourceAddress, ResourceChange, ResourceKind } from '../model/resources.js';
import { RESOURCE_KINDS, addressOf } from '../model/resources.js';
import { remoteFingerprint } from '../engine/remote-fingerprint.js';
import type { ApplyEvent, ApplyResult } from './events.js';
import { WRITERS, type WriteContext } from './resource-writers.js';
import { runWorkGraph, type WorkNode } from './work-graph.js';

export interface ApplyOptions {
  parallelism: number;
  waitForImages?: boolean;
  imagePollMs?: number;
  /** The resources of one kind by name (the plan's names), read again just before the first write of that kind. */
  reread: (kind: ResourceKind) => Promise<ReadonlyMap<string, ActualResource>>;
  saveToken: WriteContext['saveToken'];
  /** Each connection's tools as answered right after this apply wrote it (for the tool-surface lock). */
  onConnectionTested?: WriteContext['onConnectionTested'];
  onEvent?: (event: ApplyEvent) => void;
  shouldStop?: () => boolean;
}

export class ChangedSincePlanError extends UserError {
  constructor(address: ResourceAddress) {
    super(`${address} changed since plan`, 'run plan again to see the new remote state');
  }
}

const WRITING_ACTIONS = new Set(['create', 'update', 'adopt', 'replace', 'delete']);

export async function applyPlan(
  plan: Plan,
  desired: DesiredState,
  actual: ActualState,
  context: Pick<WriteContext, 'caller'>,
  options: ApplyOptions,
): Promise<ApplyResult> {
  const emit = options.onEvent ?? (() => undefined);
  const writeContext: WriteContext = {
    caller: context.caller,
    environmentSlug: desired.target.slug,
    ids: new Map(actual.resources.map((resource) => [addressOf(resource.kind, resource.name), resource.id])),
    desired: new Map(desired.resources.map((resource) => [addressOf(resource.kind, resource.name), resource])),
    actual: new Map(actual.resources.map((resource) => [addressOf(resource.kind, resource.name), resource])),
    waitForImages: options.waitForImages ?? false,
    imagePollMs: options.imagePollMs ?? 250,
    info: (address, message) => emit({ type: 'info', address, message }),
    saveToken: options.saveToken,
    ...(options.onConnectionTested ? { onConnectionTested: options.onConnectionTested } : {}),
  };

  const fresh = new Map<ResourceKind, Promise<ReadonlyMap<string, ActualResource>>>();
  const ensureUnchanged = async (change: ResourceChange): Promise<'unchanged' | 'gone'> => {
    if (change.action === 'create' || change.remoteFingerprint === undefined) return 'unchanged';
    let snapshot = fresh.get(change.kind);
    if (!snapshot) {
      snapshot = options.reread(change.kind);
      fresh.set(change.kind, snapshot);
    }
    const now = (await snapshot).get(change.name);
    if (now === undefined && change.action === 'delete') return 'gone';
    const configured = writeContext.desired.get(change.address)?.spec;
    if (now === undefined || remoteFingerprint(now, configured) !== change.remoteFingerprint) throw new ChangedSincePlanError(change.address);
    writeContext.actual.set(change.address, now);
    return 'unchanged';
  };

  const changes = plan.changes.filter((change) => WRITING_ACTIONS.has(change.action));
  const byId = new Map(changes.map((change) => [change.address as string, change]));
  const nodes: WorkNode[] = [];
  const kindIndex = (kind: ResourceKind) => RESOURCE_KINDS.indexOf(kind);
  const barrier = (phase: 'written' | 'deleted', kind: ResourceKind) => `${phase}:${kind}`;

  for (const change of changes) {
    const isDelete = change.action === 'delete';
    const dependsOn: string[] = isDelete
      ? // A delete waits until nothing of a later kind can still reference it.
        RESOURCE_KINDS.filter((kind) => kindIndex(kind) > kindIndex(change.kind)).flatMap((kind) => [barrier('written', kind), barrier('deleted', kind)])
      : [...change.dependsOn];
    nodes.push({
      id: change.address,
      dependsOn,
      run: async (release) => {
        if ((await ensureUnchanged(change)) === 'gone') {
          noteByAddress.set(change.address, 'already gone');
          return;
        }
        // Adopting what already matches writes nothing: the check above is what it needed.
        if (change.action === 'adopt' && change.fields.length === 0) {
          noteByAddress.set(change.address, 'taken over, nothing to write');
          return;
        }
        const writer = WRITERS[change.kind];
        let note: string | undefined;
        if (change.action === 'replace' && change.kind !== 'apiKey') {
          await deleteTolerant(() => writer({ ...change, action: 'delete' }, writeContext));
          note = await writer({ ...change, action: 'create' }, writeContext, release);
        } else if (change.action === 'delete') {
          note = await deleteTolerant(() => writer(change, writeContext));
        } else {
          note = await writer(change, writeContext, release);
        }
        noteByAddress.set(change.address, note);
      },
    });
  }
  for (const kind of RESOURCE_KINDS) {
    for (const phase of ['written', 'deleted'] as const) {
      const members = changes
        .filter((change) => change.kind === kind && (change.action === 'delete') === (phase === 'deleted'))
        .map((change) => change.address as string);
      nodes.push({ id: barrier(phase, kind), dependsOn: members, run: async () => undefined });
    }
  }

  const noteByAddress = new Map<string, string | undefined>();
  const result: ApplyResult = {
    done: [],
    failed: [],
    skipped: [],
    notStarted: [],
    counts: { added: 0, changed: 0, adopted: 0, replaced: 0, destroyed: 0 },
  };
  const countKey = { create: 'added', update: 'changed', adopt: 'adopted', replace: 'replaced', delete: 'destroyed' } as const;

  // When the credential's scopes could not be known beforehand, the first permission_denied says
  // them: every later write would be denied too, so nothing more is started.
  let deniedAt: string | undefined;
  const outcomes = await runWorkGraph(nodes, {
    concurrency: options.parallelism,
    shouldStop: () => deniedAt !== undefined || options.shouldStop?.() === true,
    onStart: (id) => {
      const change = byId.get(id);
      if (change) emit({ type: 'start', address: change.address, action: change.action });
    },
    onEnd: (outcome) => {
      const change = byId.get(outcome.id);
      if (!change) return;
      const ms = Math.round(outcome.ms ?? 0);
      if (outcome.state === 'done') {
        const note = noteByAddress.get(outcome.id);
        result.done.push({ address: change.address, action: change.action, ms, ...(note ? { note } : {}) });
        result.counts[countKey[change.action as keyof typeof countKey]] += 1;
        emit({ type: 'done', address: change.address, action: change.action, ms, ...(note ? { note } : {}) });
      } else if (outcome.state === 'failed') {
        const { code, message } = describeFailure(outcome.error);
        if (code === 'permission_denied' && deniedAt === undefined) {
          deniedAt = change.address;
          result.stoppedBy = `${change.address} was denied (permission_denied): the credential may not make this change, so nothing more was started`;
        }
        result.failed.push({ address: change.address, action: change.action, code, message });
        emit({ type: 'failed', address: change.address, action: change.action, ms, code, message });
      } else if (outcome.state === 'skipped') {
        const blocker = outcome.blockedBy ?? '';
        const reason = `depends on ${byId.has(blocker) ? blocker : 'a failed change'}`;
        result.skipped.push({ address: change.address, action: change.action, reason });
        emit({ type: 'skipped', address: change.address, action: change.action, reason });
      }
    },
  });
  for (const outcome of outcomes) {
    const change = byId.get(outcome.id);
    if (change && outcome.state === 'not-started') result.notStarted.push({ address: change.address, action: change.action });
  }
  return result;
}

/**
 * A delete that finds the resource gone has reached what it wanted. This happens when the answer
 * to a first attempt was lost and the retry sees 404, or when someone deleted it meanwhile.
 */
async function deleteTolerant(run: () => Promise<string | undefined>): Promise<string | undefined> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return 'already gone';
    throw error;
  }
}

function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof ChangedSincePlanError) return { code: 'changed_since_plan', message: error.message };
  if (error instanceof ApiError) return { code: error.code, message: `${error.rpc}: ${error.message}` };
  if (error instanceof UserError) return { code: 'error', message: error.hint ? `${error.message} (${error.hint})` : error.message };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}
