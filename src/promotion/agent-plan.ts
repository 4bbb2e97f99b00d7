// A one-agent Plan (for promote and rollback), computed by the same engine as `plan`, so the diff
// is rendered exactly as plan renders it.
import { type IgnoreRule, keepIgnoredFields } from '../engine/ignore.js';
import { computePlan } from '../engine/plan.js';
import type { AgentVersionWithSlug } from '../model/api.js';
import {
  addressOf,
  changeCount,
  type DesiredResource,
  type EnvironmentTarget,
  type IgnoredDifference,
  type JsonObject,
  type Plan,
} from '../model/resources.js';
import { normalizeAgent } from '../state/normalize.js';

export interface AgentPlanInput {
  target: EnvironmentTarget;
  slug: string;
  definition: JsonObject;
  /** The target's latest version, or undefined when the agent does not exist there yet. */
  latest: AgentVersionWithSlug | undefined;
  promotion?: { fromEnvironment: string; version: number };
  reason?: string;
  /** What keepIgnoredOfAgent left alone in `definition`: listed with the plan. */
  ignored?: IgnoredDifference[];
}

/**
 * The definition to write with the fields ignore rules leave alone taken from the target's latest
 * version, as plan and apply do (engine/ignore.ts): promote and rollback never revert one either.
 */
export function keepIgnoredOfAgent(
  slug: string,
  definition: JsonObject,
  latest: AgentVersionWithSlug | undefined,
  rules: readonly IgnoreRule[],
): { definition: JsonObject; ignored: IgnoredDifference[] } {
  if (!latest || rules.length === 0) return { definition, ignored: [] };
  const kept = keepIgnoredFields(addressOf('agent', slug), 'agent', definition, normalizeAgent(latest).spec, rules);
  return { definition: kept.spec, ignored: kept.ignored };
}

export function agentPlan(input: AgentPlanInput): Plan {
  const resource: DesiredResource = {
    kind: 'agent',
    name: input.slug,
    spec: input.definition,
    writeOnly: {},
    references: [],
    ...(input.promotion ? { promotion: input.promotion } : {}),
  };
  const plan = computePlan(
    { projectDir: '.', target: input.target, resources: [resource] },
    { environmentSlug: input.target.slug, resources: input.latest ? [normalizeAgent(input.latest)] : [], missingOperations: [] },
    { prune: false },
  );
  if (input.ignored && input.ignored.length > 0) plan.ignored = input.ignored;
  if (input.reason) for (const change of plan.changes) change.reason = change.reason ? `${change.reason}; ${input.reason}` : input.reason;
  return plan;
}

export function hasChanges(plan: Plan): boolean {
  return changeCount(plan) > 0;
}
