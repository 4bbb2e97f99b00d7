// The check before promote or rollback writes agent definitions into an environment: read what the
// environment runs now (one list per referenced kind) and refuse when a definition names a resource
// it lacks (src/promotion/missing-references.ts). Live is what counts: the write happens now, so
// the agent runs now; what the configuration only declares is named so the message can say "apply
// it first".
import type { RpcCaller } from '../api/operations.js';
import type { DesiredState, JsonObject } from '../model/resources.js';
import { liveNames, missingReferences, namesByKind, REFERENCED_KINDS, refuseOnMissingReferences, unreadKinds } from '../promotion/missing-references.js';
import { READ_OPERATION, readActualState } from '../state/read.js';

/**
 * Throws a PlanError listing every reference of `definitions` (slug → definition to write) that the
 * target `desired.target` does not run. Returns warnings for kinds the server does not list (those
 * references cannot be checked). `desired.resources` is what the target's configuration declares.
 */
export async function refuseWritesWithMissingReferences(
  client: RpcCaller,
  desired: Pick<DesiredState, 'target' | 'resources'>,
  definitions: ReadonlyMap<string, JsonObject>,
): Promise<string[]> {
  if (definitions.size === 0) return [];
  const actual = await readActualState(client, desired.target.slug, REFERENCED_KINDS);
  const missing = missingReferences(definitions, { present: liveNames(actual), declared: namesByKind(desired.resources) });
  refuseOnMissingReferences(missing, desired.target.name);
  return unreadKinds(actual).map(
    (kind) => `the server does not offer ${READ_OPERATION[kind].rpc}: ${kind} references of the agents to be written are not checked`,
  );
}
