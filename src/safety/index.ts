// The safety review as the commands use it: check (offline), plan (with the capability diff),
// apply (refuses while an error-severity finding stands), promote and rollback (one agent's diff).
import type { Project } from '../config/index.js';
import { blockingFindings } from '../engine/policy/index.js';
import { UserError } from '../errors.js';
import type { ActualState, DesiredState, JsonObject, Plan } from '../model/resources.js';
import type { AgentCapabilityDiff, Finding, SafetyReview } from '../model/safety.js';
import type { ToolSurfaceLock } from '../model/tool-lock.js';
import { findingLine } from '../render/safety.js';
import { readToolLock } from '../config/tool-lock-file.js';
import { agentCapabilityChange, reviewEnvironment, surfacesFor } from './review.js';

export { agentCapabilityChange, policyErrors, reviewEnvironment, reviewPromotion, surfacesFor, withWrittenAgents } from './review.js';
export { readToolLock } from '../config/tool-lock-file.js';

/**
 * The review of a plan run: findings on what the configuration wants, capabilities before → after
 * (`capabilityChanges: false`: findings only, for apply's refusal; see ReviewInputs).
 */
export async function reviewPlan(
  run: { project: Project; desired: DesiredState; actual: ActualState; plan: Plan; planned?: { desired: DesiredState; actual: ActualState } },
  options: { capabilityChanges?: boolean } = {},
): Promise<SafetyReview> {
  // The rules judge the whole configuration (a reference to an excluded resource is still to a
  // declared one), but findings on what the plan leaves out (another project's, excluded,
  // forgotten) are not this run's, and must not block an apply that never writes them.
  return reviewEnvironment({
    project: run.project,
    desired: run.desired,
    actual: run.actual,
    ...(run.planned ? { covered: run.planned } : {}),
    plan: run.plan,
    lock: await readToolLock(run.project.dir),
    ...options,
  });
}

/**
 * The findings apply refuses on (error severity, not suppressed). plan's exit code asks the same
 * question through this one function, so that a plan that passes is a plan apply accepts.
 */
export function findingsApplyRefuses(review: SafetyReview): Finding[] {
  return blockingFindings(review.findings);
}

/** Throws (exit 1, nothing written) while an error-severity finding is not suppressed. */
export function refuseOnBlockingFindings(review: SafetyReview, command: 'apply' | 'promote' | 'roll back' = 'apply'): void {
  const blocking = findingsApplyRefuses(review);
  if (blocking.length === 0) return;
  throw new UserError(
    `refusing to ${command}: ${blocking.length} policy error${blocking.length === 1 ? '' : 's'} in environment ${review.environment} (nothing was changed):\n  ${blocking.map(findingLine).join('\n  ')}`,
    "fix them, lower the rule's severity in agentform.yaml (policy.rules), or suppress it on the resource with a reason (docs/policy.md); agentform check lists them",
  ).withCode('policy_refused');
}

/** GitHub annotations for the findings when running in GitHub Actions. */
export function wantsAnnotations(env: NodeJS.ProcessEnv): boolean {
  return env.GITHUB_ACTIONS === 'true' || env.AGENTFORM_GITHUB_ANNOTATIONS === '1';
}

/**
 * promote: one agent's capability changes between the target's latest version and the definition
 * promoted into it; its subagents as the target's configuration declares them, tools from the
 * target environment's lock.
 */
export function promotionCapabilityChanges(inputs: {
  lock: ToolSurfaceLock | undefined;
  desired: DesiredState;
  slug: string;
  before: JsonObject | undefined;
  after: JsonObject;
}): AgentCapabilityDiff[] {
  const { lock } = inputs;
  const others = inputs.desired.resources.filter((resource) => resource.kind === 'agent').map((resource) => ({ name: resource.name, spec: resource.spec }));
  const diff = agentCapabilityChange(inputs.slug, inputs.before, inputs.after, others, surfacesFor(lock, inputs.desired.target.name));
  return diff ? [diff] : [];
}
