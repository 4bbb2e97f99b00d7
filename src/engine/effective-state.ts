// What the environment will hold after apply, for the capability diff: each configured resource as
// apply writes it (the remote value with the configured fields merged in: a field the
// configuration leaves out keeps its remote value, see merge.ts), and every remote resource the
// plan leaves alone (unmanaged, not pruned). The configuration alone would count a hook removed
// from the YAML as gone while apply keeps it. (The policy rules judge the configuration, with a
// field left to the server as unknown.) Pure.
import type { ActualState, DesiredResource, Plan } from '../model/resources.js';
import { mergeForWrite } from './merge.js';
import { rulesFor } from './rules.js';

export function effectiveState(desired: readonly DesiredResource[], actual: ActualState, plan: Pick<Plan, 'changes'>): DesiredResource[] {
  const key = (resource: { kind: string; name: string }) => `${resource.kind}/${resource.name}`;
  const remote = new Map(actual.resources.map((resource) => [key(resource), resource]));
  const deleted = new Set(plan.changes.filter((change) => change.action === 'delete').map((change) => change.address as string));
  const configured = new Set(desired.map(key));
  const merged = desired.map((resource): DesiredResource => {
    const have = remote.get(key(resource));
    return have ? { ...resource, spec: mergeForWrite(resource.spec, have.spec, rulesFor(resource.kind), 'omit') } : resource;
  });
  const kept = actual.resources
    .filter((resource) => !configured.has(key(resource)) && !deleted.has(key(resource)))
    .map((resource): DesiredResource => ({ kind: resource.kind, name: resource.name, spec: resource.spec, writeOnly: {}, references: [] }));
  return [...merged, ...kept];
}
