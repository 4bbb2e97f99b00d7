// A saved plan (`plan --out plan.json`) and the check that it still holds at `apply plan.json`.
// It records a fingerprint of every remote object read (of what the plan depends on: a server field
// the configuration does not set may change without making the plan stale) and of every desired
// resource, but never a write-only value: those are read from the environment again at apply time.
import type { DesiredResource, DesiredState, Plan, ResourceAddress } from '../model/resources.js';
import { addressOf } from '../model/resources.js';
import type { ActualState } from '../model/resources.js';
import { fingerprint } from '../engine/canonical.js';
import { remoteFingerprint } from '../engine/remote-fingerprint.js';

export const SAVED_PLAN_FORMAT = 'agentform-saved-plan/1';
/**
 * A saved plan with an `adopt` change: a version an older agentform refuses, rather than skipping
 * the adoptions it does not know and reporting no changes.
 */
export const SAVED_PLAN_FORMAT_ADOPTING = 'agentform-saved-plan/2';

export interface SavedPlan {
  format: typeof SAVED_PLAN_FORMAT | typeof SAVED_PLAN_FORMAT_ADOPTING;
  createdAt: string;
  environment: string;
  /** The project directory, relative to where `plan` ran (CI runs plan and apply from the same place). */
  projectDir: string;
  plan: Plan;
  /** Per desired resource: a fingerprint of what the configuration said (write-only values by source only). */
  config: Record<ResourceAddress, string>;
  /** Per remote resource read: what the plan depends on of it (engine/remote-fingerprint.ts), as apply's own check. */
  remote: Record<ResourceAddress, string>;
}

/** What identifies a desired resource's content, minus write-only values (their source and rotation marker stay). */
function desiredFingerprint(resource: DesiredResource): string {
  const writeOnly = Object.fromEntries(
    Object.entries(resource.writeOnly).map(([path, entry]) => [path, { source: entry.source, rotatedAt: entry.rotatedAt ?? null }]),
  );
  return fingerprint({
    spec: resource.spec,
    writeOnly,
    options: resource.options ?? {},
    protect: resource.protect ?? false,
    promotion: resource.promotion ?? null,
  });
}

export function savePlan(plan: Plan, desired: DesiredState, actual: ActualState, projectDir = desired.projectDir, now = new Date()): SavedPlan {
  const config: Record<string, string> = {};
  for (const resource of desired.resources) config[addressOf(resource.kind, resource.name)] = desiredFingerprint(resource);
  const configured = new Map(desired.resources.map((resource) => [addressOf(resource.kind, resource.name), resource.spec]));
  const remote: Record<string, string> = {};
  for (const resource of actual.resources) {
    const address = addressOf(resource.kind, resource.name);
    remote[address] = remoteFingerprint(resource, configured.get(address));
  }
  const format = plan.changes.some((change) => change.action === 'adopt') ? SAVED_PLAN_FORMAT_ADOPTING : SAVED_PLAN_FORMAT;
  return { format, createdAt: now.toISOString(), environment: desired.target.name, projectDir, plan, config, remote };
}

/**
 * Lists why a saved plan no longer describes what apply would do: each resource whose
 * configuration or remote object differs from when the plan was written. Empty means "still valid".
 */
export function staleness(saved: SavedPlan, desired: DesiredState, actual: ActualState): string[] {
  const now = savePlan(saved.plan, desired, actual);
  const reasons: string[] = [];
  const compare = (label: string, before: Record<string, string>, after: Record<string, string>) => {
    for (const address of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (before[address] === after[address]) continue;
      const what = before[address] === undefined ? 'appeared' : after[address] === undefined ? 'disappeared' : 'changed';
      reasons.push(`${address}: the ${label} ${what} since the plan was saved`);
    }
  };
  if (saved.environment !== desired.target.name) {
    reasons.push(`the plan is for environment ${saved.environment}, not ${desired.target.name}`);
  }
  compare('configuration', saved.config, now.config);
  compare('remote object', saved.remote, now.remote);
  return reasons.sort();
}

/** Narrows parsed JSON to a SavedPlan, or explains why it is not one. */
export function parseSavedPlan(value: unknown): SavedPlan | string {
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  const candidate = value as Partial<SavedPlan>;
  if (candidate.format !== SAVED_PLAN_FORMAT && candidate.format !== SAVED_PLAN_FORMAT_ADOPTING) {
    return `not a saved agentform plan (format ${JSON.stringify(candidate.format)}; expected ${SAVED_PLAN_FORMAT} or ${SAVED_PLAN_FORMAT_ADOPTING})`;
  }
  if (!candidate.plan || !Array.isArray(candidate.plan.changes)) return 'the plan has no changes list';
  if (typeof candidate.config !== 'object' || typeof candidate.remote !== 'object') return 'the plan has no fingerprints';
  if (typeof candidate.projectDir !== 'string' || typeof candidate.environment !== 'string') return 'the plan names no project or environment';
  return candidate as SavedPlan;
}
