// The machine-readable plan: the Plan value itself plus where it was computed. The shape is
// documented in schemas/plan.schema.json and docs/plan-format.md; formatVersion changes on any
// incompatible change. Write-only values never appear (the plan never holds them).
import type { ToolSurfaceReport } from '../engine/tool-surface.js';
import type { FieldChange, Plan, ResourceChange } from '../model/resources.js';
import { toolSurfaceJson } from './tool-surface.js';
import type { SafetyReview } from '../model/safety.js';
import { safetyToJson } from './safety.js';
import type { CapabilityTestReport } from '../model/capability-test.js';
import { capabilityTestsToJson } from './capability-tests.js';

export interface JsonRenderOptions {
  /** Where the plan was computed: a URL or "the local control plane (...)". */
  target?: string;
  /** `plan --check-tools`: the tool surfaces compared with agentform.lock.yaml. */
  toolSurface?: ToolSurfaceReport;
  /** Policy findings and capability changes (plan's `safety` key). */
  safety?: SafetyReview;
  /** `plan --json --changes-only`: leave out the resources apply does not touch (no-op). */
  changesOnly?: boolean;
  /** The capability tests checked against this environment (plan's `capabilityTests` key). */
  capabilityTests?: CapabilityTestReport;
  /** The change windows open now (plan's `openChangeWindows`): an apply now would be refused. */
  openChangeWindows?: ReadonlyArray<Record<string, string>>;
}

// The key order of a change and of a field change in the compact plan: fixed, whatever order the
// engine built them in, so that two compact plans of the same change compare as text.
const CHANGE_KEYS = ['address', 'kind', 'name', 'action', 'reason', 'fields', 'dependsOn', 'id', 'remoteFingerprint', 'kept'] as const;
const FIELD_KEYS = ['path', 'before', 'after', 'forcesReplace', 'writeOnly', 'resetToDefault', 'source'] as const;

function inKeyOrder<T extends object>(value: T, keys: readonly (keyof T)[]): Partial<T> {
  const ordered: Partial<T> = {};
  for (const key of keys) if (value[key] !== undefined) ordered[key] = value[key];
  return ordered;
}

function compactChange(change: ResourceChange): Partial<ResourceChange> {
  const ordered = inKeyOrder(change, CHANGE_KEYS);
  ordered.fields = change.fields.map((field) => inKeyOrder(field, FIELD_KEYS) as FieldChange);
  return ordered;
}

export function planToJson(plan: Plan, options: JsonRenderOptions = {}): Record<string, unknown> {
  return {
    formatVersion: plan.formatVersion,
    environment: plan.environment,
    ...(options.target !== undefined ? { target: options.target } : {}),
    summary: plan.summary,
    order: plan.order,
    changes: options.changesOnly ? plan.changes.filter((change) => change.action !== 'no-op').map(compactChange) : plan.changes,
    warnings: plan.warnings,
    ...(plan.adoptionBase !== undefined ? { adoptionBase: plan.adoptionBase } : {}),
    ...(plan.scope ? { scope: plan.scope } : {}),
    ...(plan.ignored && plan.ignored.length > 0 ? { ignored: plan.ignored } : {}),
    ...(plan.derivedToolPolicies ? { derivedToolPolicies: plan.derivedToolPolicies } : {}),
    ...(options.toolSurface ? { toolSurface: toolSurfaceJson(options.toolSurface) } : {}),
    ...(options.safety ? { safety: safetyToJson(options.safety) } : {}),
    ...(options.capabilityTests ? { capabilityTests: capabilityTestsToJson(options.capabilityTests) } : {}),
    ...(options.openChangeWindows ? { openChangeWindows: options.openChangeWindows } : {}),
  };
}

export function renderPlanJson(plan: Plan, options: JsonRenderOptions = {}): string {
  return JSON.stringify(planToJson(plan, options), null, 2);
}
