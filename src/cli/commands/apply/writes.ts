// The apply command's writes: the executor, given the session to write through, fresh reads of a
// kind when it needs them, and the token files to save new keys' tokens in.
import { relative, resolve } from 'node:path';
import type { ApplyResult } from '../../../apply/events.js';
import { applyPlan } from '../../../apply/executor.js';
import type { ToolDescriptor } from '../../../model/api.js';
import type { DesiredResource, Plan, ActualResource, ResourceKind } from '../../../model/resources.js';
import type { PlanRun } from '../../../pipeline/plan.js';
import { writeTokenFile } from '../../../pipeline/token-files.js';
import { readActualState } from '../../../state/read.js';
import type { WriteHooks } from './console.js';

/** The tools each tested connection serves, by connection name: for the lock file. */
export type TestedConnections = Map<string, { id: string; tools: readonly ToolDescriptor[] }>;

export function startWrites(
  run: PlanRun,
  plan: Plan,
  settings: { parallelism: number; waitForImages: boolean },
  hooks: WriteHooks,
  tested: TestedConnections,
): Promise<ApplyResult> {
  return applyPlan(
    plan,
    run.desired,
    run.actual,
    { caller: run.client },
    {
      ...settings,
      shouldStop: hooks.shouldStop,
      onEvent: hooks.onEvent,
      onConnectionTested: (name, id, tools) => tested.set(name, { id, tools }),
      reread: (kind) => rereadByPlannedName(run, kind),
      saveToken: (resource, token) => saveToken(run, resource, token),
    },
  );
}

/** The resources of `kind` read afresh, by name. */
async function rereadByPlannedName(run: PlanRun, kind: ResourceKind): Promise<Map<string, ActualResource>> {
  const fresh = (await readActualState(run.client, run.desired.target.slug, [kind])).resources.filter((resource) => resource.kind === kind);
  // Names as the plan gave them: of two live keys of one name, the plan named the one whose
  // token the token file holds, where a fresh read names the newest.
  const plannedName = new Map(run.actual.resources.filter((resource) => resource.kind === kind).map((resource) => [resource.id, resource.name]));
  const unplanned = fresh.filter((resource) => !plannedName.has(resource.id)).map((resource) => [resource.name, resource] as const);
  const planned = fresh.filter((resource) => plannedName.has(resource.id)).map((resource) => [plannedName.get(resource.id) as string, resource] as const);
  return new Map([...unplanned, ...planned]);
}

/** Writes a new key's token to its token file, if it has one; the path written, as the user would name it. */
async function saveToken(run: PlanRun, resource: DesiredResource, token: string): Promise<string | undefined> {
  const file = resource.options?.tokenFile;
  if (typeof file !== 'string') return undefined;
  const path = resolve(run.desired.projectDir, file);
  await writeTokenFile(run.tokenFiles.get(resource.name) ?? { path, content: { exists: false }, digest: null }, token);
  return relative(process.cwd(), path);
}
