// The fingerprint behind "changed since plan" and saved plans: what of a remote object the plan
// for it depends on, so that apply refuses when that changed and goes ahead when only the rest did.
// It holds the id, the marks of a write (`updatedAt`, an agent's `version`, `promotedFrom`: any
// write since the plan, by anyone, moves one of them) and, for a configured resource, the part of
// its spec the configuration manages (merge.ts: managedPart). Never the fields the configuration
// does not set: apply merges the configuration onto a fresh read (executor.ts), so they keep their
// current value, and a server field that changes by itself (a timestamp that is new on every read,
// nested in an agent definition or not) is churn, not drift. Pure.
import type { ActualResource, JsonObject } from '../model/resources.js';
import { fingerprint } from './canonical.js';
import { managedPart } from './merge.js';
import { rulesFor } from './rules.js';

/** Raw fields that change with every write of an object (and that the plan reads: rotation markers, promotions). */
const WRITE_MARKS = ['updatedAt', 'version', 'promotedFrom'] as const;

/**
 * `configured`: the configuration's spec for the resource (the DesiredResource's, `null`s
 * included), or undefined for a resource it does not declare (a delete, an unmanaged resource):
 * then the id and the write marks alone.
 */
export function remoteFingerprint(resource: Pick<ActualResource, 'kind' | 'id' | 'spec' | 'remote'>, configured?: JsonObject): string {
  const compared: Record<string, unknown> = { id: resource.id };
  for (const mark of WRITE_MARKS) if (resource.remote[mark] !== undefined) compared[mark] = resource.remote[mark];
  if (configured !== undefined) compared.managed = managedPart(configured, resource.spec, rulesFor(resource.kind));
  return fingerprint(compared);
}
