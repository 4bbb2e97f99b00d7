// The vocabulary of policy checks: rules, their severities per environment kind, findings.
import type { DesiredResource, JsonObject, ResourceAddress, ResourceChange, ResourceKind } from '../../model/resources.js';
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
  /**
   * The capabilities of exactly the agents of `resources` under `surfaces`, when the caller has
   * computed them already (the review needs them too); computed here when left out.
   */
  capabilities?: ReadonlyMap<string, AgentCapabilities>;
  /** The computed plan, when there is one (plan, apply, promote, rollback): the plan rules judge it. */
  plan?: PlanPolicyInput;
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

/** Every built-in rule's default: a warning, and an error in environments of kind production. */
export const STRICT_IN_PRODUCTION: DefaultSeverity = { other: 'warning', production: 'error' };

/** A warning in every environment: for what may well be intended, or what the server may refuse anyway. */
export const WARNING_EVERYWHERE: DefaultSeverity = { other: 'warning', production: 'warning' };

/** A finding of a rule that looks at one resource at a time: the address is added for it. */
export type ResourceFinding = Omit<RawFinding, 'address'>;

/** A built-in rule (default severity STRICT_IN_PRODUCTION unless it names one) checking each resource of one kind on its own. */
export function resourceRule(
  kind: ResourceKind,
  rule: { id: string; rationale: string; severity?: DefaultSeverity; check(resource: DesiredResource, context: RuleContext): ResourceFinding[] },
): BuiltinRule {
  return {
    id: rule.id,
    rationale: rule.rationale,
    severity: rule.severity ?? STRICT_IN_PRODUCTION,
    check: (context) => {
      // A loop, not flatMap and map: two arrays per resource and rule add up over 1,000 agents.
      const findings: RawFinding[] = [];
      for (const resource of context.byKind(kind)) {
        const found = rule.check(resource, context);
        for (let index = 0; index < found.length; index++) {
          const { path, message } = found[index] as ResourceFinding;
          // Spelled out, not spread: V8 gave each spread copy a hidden class of its own.
          findings.push({ address: `${kind}/${resource.name}`, path, message });
        }
      }
      return findings;
    },
  };
}

/** What the plan rules see besides the environment: the computed plan and what they compare it with. */
export interface PlanPolicyInput {
  changes: readonly ResourceChange[];
  /** The plan as its JSON document (docs/plan-format.md, without `safety`): custom plan rules judge it. */
  document: JsonObject;
  /** `plan-changed-agents` fires when more agents than this change; undefined: the rule does not run. */
  maxChangedAgents?: number;
  /**
   * The environment each changed model must already be in (`policy.plan.modelsFrom`), with the
   * model of each agent its configuration declares (offline: its desired state, not its server).
   */
  earlier?: EarlierEnvironment;
}

/** The environment `policy.plan.modelsFrom` names, as its configuration declares each agent's model. */
export interface EarlierEnvironment {
  environment: string;
  models: ReadonlyMap<string, AgentModel>;
  /** Why its configuration could not be read at all (then no model change is confirmed). */
  unreadable?: string;
}

/** An agent's `model.provider` and `model.model` (either may be left out). */
export interface AgentModel {
  provider?: string;
  /** The type of the provider it names, when that provider is declared (e.g. `openai`). */
  providerType?: string;
  model?: string;
  /** The model reads an `${env:}` variable this run does not set: not known here. */
  unknown?: true;
}

/** What a plan rule sees: the environment's rule context and the plan. */
export interface PlanRuleContext extends RuleContext {
  plan: PlanPolicyInput;
}

export interface PlanRule {
  id: string;
  rationale: string;
  severity: DefaultSeverity;
  check(context: PlanRuleContext): RawFinding[];
}
