// Reads one environment into ActualState: one list/get call per kind, all at once (bounded), never
// one call per resource. A read operation the server does not offer is recorded, not fatal.
import type { ResponseOf, Rpc } from '../api/operations.js';
import { OPERATIONS } from '../api/operations.js';
import { ApiError } from '../errors.js';
import type { ConnectionGrant } from '../model/api.js';
import type { ActualResource, ActualState, ResourceKind } from '../model/resources.js';
import { RESOURCE_KINDS } from '../model/resources.js';
import {
  normalizeAgent,
  normalizeApiKeys,
  normalizeConnection,
  normalizeEnvironment,
  normalizeGrant,
  normalizeOrganization,
  normalizeProvider,
  normalizeSecret,
} from './normalize.js';

/** Anything that can call an operation: the HTTP client (ControlApiClient), or a fake in tests. */
export type { RpcCaller } from '../api/operations.js';
import type { RpcCaller } from '../api/operations.js';

export const READ_CONCURRENCY = 8;

/** The read operation of each kind and what cannot be planned without it. */
export const READ_OPERATION: { readonly [K in ResourceKind]: { rpc: Rpc; consequence: string } } = {
  organization: { rpc: 'organizations.get', consequence: 'the organization cannot be planned' },
  environment: { rpc: 'environments.get', consequence: 'the environment settings cannot be planned' },
  secret: { rpc: 'secrets.list', consequence: 'secrets cannot be planned' },
  provider: { rpc: 'providers.list', consequence: 'providers cannot be planned' },
  connection: { rpc: 'connections.list', consequence: 'connections cannot be planned' },
  grant: { rpc: 'connections.grants.list', consequence: 'grants cannot be planned' },
  agent: { rpc: 'agents.list', consequence: 'agents cannot be planned' },
  apiKey: { rpc: 'apiKeys.list', consequence: 'API keys cannot be planned' },
};

/** Runs tasks with at most `limit` in flight; results in task order. */
async function bounded<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

type KindResult = { resources: ActualResource[]; missing?: { rpc: string; consequence: string } };

export async function readActualState(caller: RpcCaller, environmentSlug: string, kinds: readonly ResourceKind[] = RESOURCE_KINDS): Promise<ActualState> {
  const wanted = RESOURCE_KINDS.filter((kind) => kinds.includes(kind));
  // Grants may name their connection only by id; the connection list names it. Share one read.
  let connectionList: Promise<ResponseOf<'connections.list'>> | undefined;
  const listConnections = () => (connectionList ??= caller.call('connections.list', {}));
  const connectionNames = () =>
    listConnections()
      .then((list) => new Map(list.map((connection) => [connection.id, connection.name])))
      .catch(() => new Map<string, string>());

  const readKind = async (kind: ResourceKind): Promise<KindResult> => {
    const { rpc, consequence } = READ_OPERATION[kind];
    try {
      return { resources: await readOne(kind) };
    } catch (error) {
      if (error instanceof ApiError && error.isUnimplemented && OPERATIONS[rpc].status === 'assumed') {
        return { resources: [], missing: { rpc, consequence } };
      }
      // The environment itself may not exist yet: the plan then creates it.
      if (kind === 'environment' && error instanceof ApiError && error.code === 'not_found') return { resources: [] };
      throw error;
    }
  };

  const readOne = async (kind: ResourceKind): Promise<ActualResource[]> => {
    switch (kind) {
      case 'organization':
        return [normalizeOrganization(await caller.call('organizations.get', undefined))];
      case 'environment':
        return [normalizeEnvironment(await caller.call('environments.get', { slug: environmentSlug }))];
      case 'secret':
        return (await caller.call('secrets.list', {})).map(normalizeSecret);
      case 'provider':
        return (await caller.call('providers.list', {})).map(normalizeProvider);
      case 'connection':
        return (await listConnections()).map(normalizeConnection);
      case 'grant': {
        const grants = await caller.call('connections.grants.list', {});
        const needsNames = grants.some((grant: ConnectionGrant) => !grant.connection);
        const names = needsNames ? await connectionNames() : new Map<string, string>();
        return grants.map((grant) => normalizeGrant(grant, names)).filter((grant): grant is ActualResource => grant !== undefined);
      }
      case 'agent':
        return (await caller.call('agents.list', {})).map(normalizeAgent);
      case 'apiKey':
        return normalizeApiKeys(await caller.call('apiKeys.list', {}));
    }
  };

  const results = await bounded(
    wanted.map((kind) => () => readKind(kind)),
    READ_CONCURRENCY,
  );
  return {
    environmentSlug,
    resources: results.flatMap((result) => result.resources),
    missingOperations: results.flatMap((result) => (result.missing ? [result.missing] : [])),
  };
}
