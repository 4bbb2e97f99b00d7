// A one-agent Plan (for promote and rollback), computed by the same engine as `plan`, so the diff
// is rendered exactly as plan renders it.
import { computePlan } from '../engine/plan.js';
import type { AgentVersionWithSlug } from '../model/api.js';
import { changeCount, type DesiredResource, type EnvironmentTarget, type JsonObject, type Plan } from '../model/resources.js';
import { normalizeAgent } from '../state/normalize.js';

export interface AgentPlanInput {
  target: EnvironmentTarget;
  slug: string;
  definition: JsonObject;
  /** The target's latest version, or undefined when the agent does not exist there yet. */
  latest: AgentVersionWithSlug | undefined;
  promotion?: { fromEnvironment: string; version: number };
  reason?: string;
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
  if (input.reason) for (const change of plan.changes) change.reason = change.reason ? `${change.reason}; ${input.reason}` : input.reason;
  return plan;
}

export function hasChanges(plan: Plan): boolean {
  return changeCount(plan) > 0;
}
