// The vocabulary of policy checks: rules, their severities per environment kind, findings.
import type { DesiredResource, ResourceAddress, ResourceKind } from '../../model/resources.js';
import type { AgentCapabilities, LockedSurfaces } from '../capabilities.js';

export type Severity = 'error' | 'warning' | 'off';
export type { PathSegment } from '../../model/safety.js';
import type { PathSegment } from '../../model/safety.js';

/** A rule's default severity: stricter for environments of kind `production`. */
export interface DefaultSeverity {
  other: Severity;
  production: Severity;
}

/** What a rule sees: one environment's desired resources, its lock, and the agents' capabilities. */
export interface PolicyInput {
  /** agentform's name for the environment (the key under `environments:`). */
  environment: string;
  /** Its slug on the server (the name of the `environment` resource); defaults to `environment`. */
  environmentSlug?: string;
  /** The environment's `settings.kind` (e.g. `production`), when set. */
  environmentKind?: string;
  resources: readonly DesiredResource[];
  /** The locked tool surfaces of this environment's connections; undefined: no lock entry at all. */
  surfaces?: LockedSurfaces;
  thresholds: PolicyThresholds;
}

export interface PolicyThresholds {
  /** The deepest subagent chain allowed before `subagent-depth` fires. */
  subagentDepth: number;
  /** The most subagents (or concurrent children) one agent may have before it fires. */
  subagentFanOut: number;
}

export const DEFAULT_THRESHOLDS: PolicyThresholds = { subagentDepth: 3, subagentFanOut: 5 };

/** Data a rule computes once and shares: capabilities and the resources by kind. */
export interface RuleContext extends PolicyInput {
  capabilities: ReadonlyMap<string, AgentCapabilities>;
  byKind(kind: ResourceKind): DesiredResource[];
}

/** A finding before its severity is resolved. */
export interface RawFinding {
  address: ResourceAddress;
  /** Path inside the resource's spec (for locating it in the file). */
  path: PathSegment[];
  message: string;
}

export interface BuiltinRule {
  id: string;
  /** One line: why it matters. */
  rationale: string;
  severity: DefaultSeverity;
  check(context: RuleContext): RawFinding[];
}

export type { Finding } from '../../model/safety.js';
