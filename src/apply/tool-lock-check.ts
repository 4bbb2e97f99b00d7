// The tool-surface lock at run time: read each connection's live tools (connections.test, control
// scope) and compare them with agentform.lock.yaml. Used by `agentform lock`, by apply before its
// first write, and by `plan --check-tools`. The lock file itself is read and written by the caller
// (config/tool-lock-file.ts); this module only talks to the API and the pure engine.
import type { RpcCaller } from '../api/operations.js';
import {
  connectionsOfChangedAgents,
  diffSurface,
  isEmptyDiff,
  lockConnection,
  lockedSurface,
  withSurfaces,
  type SurfaceCheck,
  type SurfaceDiff,
} from '../engine/tool-surface.js';
import { ApiError, UserError } from '../errors.js';
import type { ToolDescriptor } from '../model/api.js';
import type { ActualState, DesiredState, Plan } from '../model/resources.js';
import type { LockedConnection, ToolSurfaceLock } from '../model/tool-lock.js';

/** The live surface of one connection, locked form. */
export async function readSurface(client: RpcCaller, id: string): Promise<LockedConnection> {
  const answer = await client.call('connections.test', { id });
  return lockConnection(Array.isArray(answer?.tools) ? answer.tools : []);
}

/** Whether an error says the key may not call connections.test (it needs the control scope). */
export function isScopeError(error: unknown): boolean {
  return error instanceof ApiError && (error.code === 'permission_denied' || error.status === 403);
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Reads and compares the named connections (all at once: each is one round trip to a tool server).
 * `ids` gives the remote id of each connection that exists; one without an id is `missing`.
 * `readUnlocked`: also read connections with no lock entry (to lock them); otherwise they are
 * reported `unlocked` without a request. A key without the control scope throws (isScopeError).
 */
export async function checkSurfaces(
  client: RpcCaller,
  lock: ToolSurfaceLock | undefined,
  environment: string,
  names: readonly string[],
  ids: ReadonlyMap<string, string>,
  options: { readUnlocked: boolean },
): Promise<SurfaceCheck[]> {
  const sorted = [...new Set(names)].sort();
  return Promise.all(
    sorted.map(async (connection): Promise<SurfaceCheck> => {
      const id = ids.get(connection);
      if (id === undefined) return { connection, status: 'missing' };
      const locked = lock ? lockedSurface(lock, environment, connection) : undefined;
      if (!locked && !options.readUnlocked) return { connection, status: 'unlocked' };
      let live: LockedConnection;
      try {
        live = await readSurface(client, id);
      } catch (error) {
        if (isScopeError(error)) throw error;
        return { connection, status: 'unreadable', error: reason(error) };
      }
      return compareSurface(lock, environment, connection, live);
    }),
  );
}

/** One live surface against its lock entry (none: `unlocked`). */
function compareSurface(lock: ToolSurfaceLock | undefined, environment: string, connection: string, live: LockedConnection): SurfaceCheck {
  const locked = lock ? lockedSurface(lock, environment, connection) : undefined;
  if (!locked) return { connection, status: 'unlocked', live };
  const diff = diffSurface(locked, live);
  return isEmptyDiff(diff) ? { connection, status: 'same', live } : { connection, status: 'differs', diff, live };
}

/** Remote ids of the environment's connections, by name. */
export function connectionIds(actual: ActualState): Map<string, string> {
  return new Map(actual.resources.filter((resource) => resource.kind === 'connection').map((resource) => [resource.name, resource.id]));
}

export const ACCEPT_HINT =
  'review the change; to accept it run `agentform lock --update -e <env>` (or `agentform apply --update-lock`), then commit agentform.lock.yaml';

export interface ToolLockGateInput {
  client: RpcCaller;
  plan: Plan;
  desired: DesiredState;
  actual: ActualState;
  /** The project's lock, undefined when there is no lock file yet. */
  lock: ToolSurfaceLock | undefined;
  /** --update-lock: a differing surface is accepted and written into the lock. */
  updateLock: boolean;
  save(lock: ToolSurfaceLock): Promise<void>;
  /** A line for the person running apply (stderr). */
  say(line: string): void;
  /** The tool-level diff as text (render/tool-surface.ts: apply/ does no rendering of its own). */
  renderDiff(connection: string, diff: SurfaceDiff): string;
  /** The command that writes, for its refusal (default apply). */
  command?: 'apply' | 'promote' | 'roll back';
}

/** A connection's tools as connections.test answered right after the apply wrote it, by name. */
export type TestedConnections = ReadonlyMap<string, { id: string; tools: readonly ToolDescriptor[] }>;

export interface ToolLockGate {
  /**
   * After the apply: the connections this plan created or rewrote are read now (before the write
   * they did not exist, or pointed elsewhere) and locked or compared; the lock is written when
   * anything was recorded. Throws when such a surface differs from its lock entry (without
   * --update-lock): the apply has happened, the lock keeps the reviewed entry. `tested`: the
   * answers the apply already had for connections it wrote (resource-writers.ts), used instead of
   * asking each tool server a second time; the others are read here.
   */
  finish(tested?: TestedConnections): Promise<void>;
}

/**
 * apply's check, before its first write: each existing connection that an agent changed by the
 * plan depends on is read and compared with the lock. A difference refuses the apply (UserError
 * with the tool-level diff), unless --update-lock. A connection with no entry is locked (the run
 * says so); one the plan itself creates is read and locked after the apply.
 */
export async function toolLockGate(input: ToolLockGateInput): Promise<ToolLockGate> {
  const environment = input.desired.target.name;
  const { existing, created } = connectionsOfChangedAgents(input.plan, input.desired);
  const rewrites = new Set(
    input.plan.changes
      .filter((change) => change.kind === 'connection' && (change.action === 'update' || change.action === 'adopt' || change.action === 'replace'))
      .map((change) => change.name),
  );
  const readAfter = [...created, ...existing.filter((name) => rewrites.has(name))];
  const ids = connectionIds(input.actual);
  const record = new Map<string, LockedConnection>();
  const checks = await checkSurfaces(input.client, input.lock, environment, existing, ids, { readUnlocked: true });
  const refusals: string[] = [];
  for (const check of checks) {
    if (check.status === 'differs' && check.live) {
      if (input.updateLock) {
        record.set(check.connection, check.live);
        input.say(
          `Tool surface of connection ${check.connection} changed; accepted (--update-lock):\n${input.renderDiff(check.connection, check.diff as SurfaceDiff)}`,
        );
      } else {
        refusals.push(input.renderDiff(check.connection, check.diff as SurfaceDiff));
      }
    } else if (check.status === 'unlocked' && check.live) {
      record.set(check.connection, check.live);
      input.say(`Locking connection ${check.connection} (first apply that depends on it): ${describeSurface(check.live)}`);
    } else if (check.status === 'unreadable') {
      if (input.lock && lockedSurface(input.lock, environment, check.connection)) {
        refusals.push(`connection ${check.connection}: cannot read its tools to compare them with the lock: ${check.error}`);
      } else {
        input.say(
          `warning: connection ${check.connection} is not locked: cannot read its tools (${check.error}); run \`agentform lock -e ${environment}\` once its server answers`,
        );
      }
    }
  }
  if (refusals.length > 0) {
    throw new UserError(
      `refusing to ${input.command ?? 'apply'}: the tool surface of ${refusals.length === 1 ? 'a connection' : `${refusals.length} connections`} that changed agents use differs from agentform.lock.yaml (nothing was changed):\n${refusals.join('\n')}`,
      ACCEPT_HINT,
    ).withCode('tool_surface_differs');
  }
  return {
    finish: async (tested = new Map()) => {
      // Compared with the lock as this run left it (entries recorded before the write included).
      const current = record.size > 0 ? withSurfaces(input.lock ?? { version: 1, environments: {} }, environment, record) : input.lock;
      const known = readAfter
        .filter((name) => tested.has(name))
        .map((name) => compareSurface(current, environment, name, lockConnection(tested.get(name)!.tools)));
      const toRead = readAfter.filter((name) => !tested.has(name));
      const read = await idsAfterApply(input.client, toRead)
        .then((fresh) => checkSurfaces(input.client, current, environment, toRead, fresh, { readUnlocked: true }))
        .catch((error: unknown) => {
          input.say(`warning: the connections this apply created or changed were not checked against the lock: ${reason(error)}`);
          return [];
        });
      const after = [...known, ...read].sort((a, b) => (a.connection < b.connection ? -1 : a.connection > b.connection ? 1 : 0));
      const late: string[] = [];
      for (const check of after) {
        if (check.status === 'unlocked' && check.live) {
          record.set(check.connection, check.live);
          input.say(
            `Locking connection ${check.connection} (${created.includes(check.connection) ? 'created' : 'changed'} by this apply): ${describeSurface(check.live)}`,
          );
        } else if (check.status === 'differs' && check.live) {
          if (input.updateLock) record.set(check.connection, check.live);
          else late.push(input.renderDiff(check.connection, check.diff as SurfaceDiff));
        } else if (check.status === 'unreadable') {
          input.say(
            `warning: connection ${check.connection} is not locked: cannot read its tools (${check.error}); run \`agentform lock -e ${environment}\` once its server answers`,
          );
        }
      }
      if (record.size > 0) await input.save(withSurfaces(input.lock ?? { version: 1, environments: {} }, environment, record));
      if (late.length > 0) {
        throw new UserError(
          `the connection${late.length === 1 ? '' : 's'} this apply created or changed serve${late.length === 1 ? 's' : ''} other tools than agentform.lock.yaml records (the lock was not changed for ${late.length === 1 ? 'it' : 'them'}):\n${late.join('\n')}`,
          ACCEPT_HINT,
        ).withCode('tool_surface_differs');
      }
    },
  };
}

/** Ids of connections created by the apply, read back by name. */
async function idsAfterApply(client: RpcCaller, names: readonly string[]): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const wanted = new Set(names);
  const listed = await client.call('connections.list', {});
  return new Map(listed.filter((connection) => wanted.has(connection.name)).map((connection) => [connection.name, connection.id]));
}

/** `12 tools, 3 destructive`. */
export function describeSurface(surface: LockedConnection): string {
  const destructive = surface.tools.filter((tool) => tool.annotations.destructiveHint && !tool.annotations.readOnlyHint).length;
  return `${surface.tools.length} tool${surface.tools.length === 1 ? '' : 's'}, ${destructive} destructive`;
}
