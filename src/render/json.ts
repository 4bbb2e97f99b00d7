// The machine-readable plan: the Plan value itself plus where it was computed. The shape is
// documented in schemas/plan.schema.json and docs/plan-format.md; formatVersion changes on any
// incompatible change. Write-only values never appear (the plan never holds them).
import type { ToolSurfaceReport } from '../engine/tool-surface.js';
import type { Plan } from '../model/resources.js';
import { toolSurfaceJson } from './tool-surface.js';
import type { SafetyReview } from '../model/safety.js';
import { safetyToJson } from './safety.js';

export interface JsonRenderOptions {
  /** Where the plan was computed: a URL or "the local control plane (...)". */
  target?: string;
  /** `plan --check-tools`: the tool surfaces compared with agentform.lock.yaml. */
  toolSurface?: ToolSurfaceReport;
  /** Policy findings and capability changes (plan's `safety` key). */
  safety?: SafetyReview;
}

export function planToJson(plan: Plan, options: JsonRenderOptions = {}): Record<string, unknown> {
  return {
    formatVersion: plan.formatVersion,
    environment: plan.environment,
    ...(options.target !== undefined ? { target: options.target } : {}),
    summary: plan.summary,
    order: plan.order,
    changes: plan.changes,
    warnings: plan.warnings,
    ...(plan.ignored && plan.ignored.length > 0 ? { ignored: plan.ignored } : {}),
    ...(options.toolSurface ? { toolSurface: toolSurfaceJson(options.toolSurface) } : {}),
    ...(options.safety ? { safety: safetyToJson(options.safety) } : {}),
  };
}

export function renderPlanJson(plan: Plan, options: JsonRenderOptions = {}): string {
  return JSON.stringify(planToJson(plan, options), null, 2);
}
