// What `agentform drift` reports, read off a plan computed without prune: declared resources whose
// live values differ from the configuration (or that are missing), live resources the configuration
// does not declare, and the differences ignore rules leave alone. Pure; the plan is the one verdict.
import type { FieldChange, IgnoredDifference, Plan, ResourceAddress, ResourceKind } from '../model/resources.js';
import { surfaceDiffers, type ToolSurfaceReport } from './tool-surface.js';

export interface DriftedResource {
  address: ResourceAddress;
  kind: ResourceKind;
  /** `changed`: managed fields differ; `missing`: declared, not live (deleted outside, or never applied). */
  state: 'changed' | 'missing';
  /** The managed fields whose live value (`before`) differs from the configuration (`after`). */
  fields: FieldChange[];
}

export interface UnmanagedResource {
  address: ResourceAddress;
  kind: ResourceKind;
  id?: string;
  reason?: string;
}

export interface DriftReport {
  environment: string;
  changed: DriftedResource[];
  unmanaged: UnmanagedResource[];
  ignored: IgnoredDifference[];
  warnings: string[];
  /** `--check-tools`: the live tool surfaces compared with agentform.lock.yaml. */
  toolSurface?: ToolSurfaceReport;
}

/** Fields that are differences of values: not write-only resends, not resets of fields left to the server. */
function differingFields(fields: readonly FieldChange[]): FieldChange[] {
  return fields.filter((field) => !field.writeOnly && !field.resetToDefault);
}

export interface DriftOptions {
  /** The API key this run authenticates with: never reported (a CI job's own key is rarely declared). */
  ownKey?: ResourceAddress;
  /**
   * Whether undeclared API keys are unmanaged drift: only when the environment manages its keys
   * (`pruneApiKeys: true`), as with prune. Otherwise the CI's own keys, made by hand, would be
   * drift every night.
   */
  countUndeclaredKeys?: boolean;
  toolSurface?: ToolSurfaceReport;
}

/** The drift of an environment from its plan. */
export function driftOf(plan: Plan, options: DriftOptions = {}): DriftReport {
  const { ownKey, countUndeclaredKeys = false, toolSurface } = options;
  const changed: DriftedResource[] = [];
  const unmanaged: UnmanagedResource[] = [];
  for (const change of plan.changes) {
    if (change.action === 'create') {
      changed.push({ address: change.address, kind: change.kind, state: 'missing', fields: [] });
    } else if (change.action === 'update' || change.action === 'replace') {
      // A rotation marker or a token file alone writes too, but nothing changed outside.
      const fields = differingFields(change.fields);
      if (fields.length > 0) changed.push({ address: change.address, kind: change.kind, state: 'changed', fields });
    } else if (change.action === 'unmanaged' || change.action === 'delete') {
      if (change.address === ownKey || (change.kind === 'apiKey' && change.action === 'unmanaged' && !countUndeclaredKeys)) continue;
      unmanaged.push({
        address: change.address,
        kind: change.kind,
        ...(change.id !== undefined ? { id: change.id } : {}),
        ...(change.reason !== undefined ? { reason: change.reason } : {}),
      });
    }
  }
  return { environment: plan.environment, changed, unmanaged, ignored: plan.ignored ?? [], warnings: plan.warnings, ...(toolSurface ? { toolSurface } : {}) };
}

/** Whether anything drifted (a tool surface that differs from the lock too); ignored differences never count. */
export function hasDrift(report: Pick<DriftReport, 'changed' | 'unmanaged' | 'toolSurface'>): boolean {
  return report.changed.length > 0 || report.unmanaged.length > 0 || (report.toolSurface !== undefined && surfaceDiffers(report.toolSurface));
}
