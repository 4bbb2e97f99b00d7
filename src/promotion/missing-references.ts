// What a target environment lacks of the resources that agent definitions about to be written
// there name (providers, connections, subagents, secrets: the one list in src/engine/references.ts).
// Promote, declarative promotion and rollback write a definition made in another environment or at
// another time, which the target's configuration check never saw: an agent that names a provider
// the target does not have cannot run there. Pure: the caller says what the target has.
import { formatJsonPath } from '../config/problems.js';
import { PlanError } from '../engine/errors.js';
import { agentDefinitionReferences } from '../engine/references.js';
import type { ActualState, JsonObject, ResourceKind } from '../model/resources.js';
import { READ_OPERATION } from '../state/read.js';

/** The kinds an agent definition can name (the kinds to read from the target). */
export const REFERENCED_KINDS: readonly ResourceKind[] = ['secret', 'provider', 'connection', 'agent'];

export type NamesByKind = ReadonlyMap<ResourceKind, ReadonlySet<string>>;

export interface TargetResources {
  /**
   * What the agents can use once written, per kind. A kind absent from the map could not be read
   * (the server does not offer its list): unknown, so its references are not refused.
   */
  present: NamesByKind;
  /** What the target's configuration declares, to say "declared but not applied yet". */
  declared?: NamesByKind;
}

export interface MissingReference {
  agent: string;
  kind: ResourceKind;
  name: string;
  /** Where the definition names it: `tools[0].name`. */
  path: string;
  /** The target's configuration declares it, but the target does not run it yet. */
  declared: boolean;
}

/**
 * The references of `definitions` (slug → definition) that the target lacks, in definition order.
 * The agents written in the same run count as present: they are written before those that name them.
 */
export function missingReferences(definitions: ReadonlyMap<string, JsonObject>, target: TargetResources): MissingReference[] {
  const missing: MissingReference[] = [];
  for (const [agent, definition] of definitions) {
    for (const reference of agentDefinitionReferences(definition)) {
      if (reference.kind === 'agent' && definitions.has(reference.name)) continue;
      const present = target.present.get(reference.kind);
      if (!present || present.has(reference.name)) continue;
      missing.push({
        agent,
        kind: reference.kind,
        name: reference.name,
        path: formatJsonPath(reference.segments),
        declared: target.declared?.get(reference.kind)?.has(reference.name) === true,
      });
    }
  }
  return missing;
}

/** The names of `resources` per kind, with an (empty) entry for every kind in `kinds`. */
export function namesByKind(
  resources: Iterable<{ kind: ResourceKind; name: string }>,
  kinds: readonly ResourceKind[] = REFERENCED_KINDS,
): Map<ResourceKind, Set<string>> {
  const names = new Map<ResourceKind, Set<string>>(kinds.map((kind) => [kind, new Set<string>()]));
  for (const resource of resources) names.get(resource.kind)?.add(resource.name);
  return names;
}

/** The kinds of `kinds` whose list the server did not offer when `actual` was read. */
export function unreadKinds(actual: Pick<ActualState, 'missingOperations'>, kinds: readonly ResourceKind[] = REFERENCED_KINDS): ResourceKind[] {
  return kinds.filter((kind) => actual.missingOperations.some((missing) => missing.rpc === READ_OPERATION[kind].rpc));
}

/** What the target runs, per kind; kinds it could not list are left out (unknown). */
export function liveNames(actual: ActualState, kinds: readonly ResourceKind[] = REFERENCED_KINDS): Map<ResourceKind, Set<string>> {
  const unread = unreadKinds(actual, kinds);
  return namesByKind(
    actual.resources,
    kinds.filter((kind) => !unread.includes(kind)),
  );
}

/** One line per missing reference: `agent support uses connection everything (tools[0].name), which production does not have`. */
export function describeMissingReference(missing: MissingReference, environment: string): string {
  const uses = `agent ${missing.agent} uses ${missing.kind} ${missing.name} (${missing.path}), which ${environment} does not have`;
  return missing.declared ? `${uses} yet: its configuration declares it, apply ${environment} first` : uses;
}

/**
 * Refuses (PlanError, before any write) when anything is missing. The hint says how to make the
 * target ready, unless the caller knows better (`hint`).
 */
export function refuseOnMissingReferences(missing: readonly MissingReference[], environment: string, hint?: (undeclared: string) => string): void {
  if (missing.length === 0) return;
  const count = `${missing.length} reference${missing.length === 1 ? '' : 's'}`;
  const lines = missing.map((item) => `  ${describeMissingReference(item, environment)}`);
  const undeclared = [...new Set(missing.filter((item) => !item.declared).map((item) => `${item.kind} ${item.name}`))].join(', ');
  const apply = `apply ${environment} (agentform apply -e ${environment}) before writing these agents there`;
  const fix = hint && undeclared ? hint(undeclared) : undeclared ? `declare ${undeclared} for ${environment}, then ${apply}` : apply;
  throw new PlanError(`${environment} lacks what the agents to be written use (${count}); nothing was written:\n${lines.join('\n')}`, fix);
}
