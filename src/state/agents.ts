// One agent's versions in an environment, read through the API client (the target reader of
// promote, rollback and history).
import type { RpcCaller } from '../api/operations.js';
import { ApiError } from '../errors.js';
import type { AgentVersionWithSlug } from '../model/api.js';

/** agents.get, with "not there" as undefined. */
export async function latestAgentVersion(caller: RpcCaller, slug: string): Promise<AgentVersionWithSlug | undefined> {
  try {
    return await caller.call('agents.get', { slug });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return undefined;
    throw error;
  }
}
