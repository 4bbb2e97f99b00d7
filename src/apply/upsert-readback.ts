// A lost `agents.upsert` answer: before the client sends the upsert again, read the agent back. On
// a server where every upsert makes a version (the API does not say an identical one does not), a
// blind retry would add a version nobody asked for.
import type { RpcCaller } from '../api/operations.js';
import { diffSpec } from '../engine/diff.js';
import { rulesFor } from '../engine/rules.js';
import { ApiError } from '../errors.js';
import type { AgentDefinition, AgentVersion } from '../model/api.js';
import { jsonOf } from '../model/specs.js';

/**
 * The agent's latest version when it is the lost upsert's result, else undefined ("send it again").
 * It is when it is newer than the version the plan saw (`plannedVersion`; undefined: the agent did
 * not exist) and holds every field that was sent. Only the sent fields are compared, as the plan
 * compares them, because the server fills defaults. The version test matters: a field reset with
 * `null` is not sent, so the old version alone could look like a match.
 */
export async function appliedUpsert(caller: RpcCaller, slug: string, sent: AgentDefinition, plannedVersion: number | undefined): Promise<AgentVersion | undefined> {
  let latest: AgentVersion;
  try {
    latest = await caller.call('agents.get', { slug });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return undefined;
    throw error;
  }
  if (plannedVersion !== undefined && !(latest.version > plannedVersion)) return undefined;
  const differences = diffSpec(jsonOf(sent), jsonOf(latest.definition ?? {}), rulesFor('agent'));
  return differences.length === 0 ? latest : undefined;
}
