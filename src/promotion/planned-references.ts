// Declarative promotion's side of the missing-references check: an agent declared with
// `promote: {from, version}` gets its definition from the source environment, so the configuration's
// reference check never saw what it names. After the plan, the target has what the configuration
// declares (the apply creates it first) and what it runs now unless the plan deletes it.
import { addressOf, type ActualState, type DesiredState, type Plan, type ResourceKind } from '../model/resources.js';
import { liveNames, missingReferences, type MissingReference } from './missing-references.js';

const WRITES = new Set(['create', 'update', 'adopt', 'replace']);

/** What the target has once `plan` is applied, per referenced kind; a kind the server does not list is left out (unknown). */
function presentAfter(desired: DesiredState, actual: ActualState, plan: Plan): Map<ResourceKind, Set<string>> {
  const deleted = new Set(plan.changes.filter((change) => change.action === 'delete').map((change) => change.address));
  const present = liveNames(actual);
  for (const [kind, names] of present) for (const name of names) if (deleted.has(addressOf(kind, name))) names.delete(name);
  for (const resource of desired.resources) present.get(resource.kind)?.add(resource.name);
  return present;
}

/** The references of the promoted agents `plan` writes that the target will not have after it. */
export function missingReferencesOfPlan(desired: DesiredState, actual: ActualState, plan: Plan, promoted: readonly string[]): MissingReference[] {
  const written = new Set(plan.changes.filter((change) => change.kind === 'agent' && WRITES.has(change.action)).map((change) => change.name));
  const definitions = new Map(
    desired.resources
      .filter((resource) => resource.kind === 'agent' && promoted.includes(resource.name) && written.has(resource.name))
      .map((resource) => [resource.name, resource.spec]),
  );
  return missingReferences(definitions, { present: presentAfter(desired, actual, plan) });
}
