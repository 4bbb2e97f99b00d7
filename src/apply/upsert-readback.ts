// A lost `agents.upsert` answer: before the client sends the upsert again, read the agent back. On
// a server where every upsert makes a version (the API does not say an identical one does not), a
// blind retry would add a version nobody asked for.
import type { RpcCaller } from '../api/operations.js';
import { diffSpec } from '../engine/diff.js';
import { rulesFor } from '../engine/rules.js';
import { ApiError } from '../errors.js';
import type { AgentVersion } from '../model/api.js';
import type { JsonObject } from '../model/resources.js';
import { jsonOf } from '../model/specs.js';

/**
 * The agent's latest version when it is the lost upsert's result, else undefined ("send it again").
 * It is when it is newer than the version the write was based on (`basedOn`; undefined: the agent
 * did not exist) and holds every field the configuration sets (`configured`). Only those are
 * compared, as the plan compares them: the server fills defaults, and fields the configuration does
 * not set were sent back as read, some of which the server may change by itself on every read. The
 * version test matters: a field reset with `null` is not sent, so the old version alone could look
 * like a match.
 */
export async function appliedUpsert(caller: RpcCaller, slug: string, configured: JsonObject, basedOn: number | undefined): Promise<AgentVersion | undefined> {
  let latest: AgentVersion;
  try {
    latest = await caller.call('agents.get', { slug });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return undefined;
    throw error;
  }
  if (basedOn !== undefined && !(latest.version > basedOn)) return undefined;
  const differences = diffSpec(configured, jsonOf(latest.definition ?? {}), rulesFor('agent'));
  return differences.length === 0 ? latest : undefined;
}
