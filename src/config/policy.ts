// The policy section of agentform.yaml (`policy: {rules, thresholds, custom}`) and the `suppress`
// lists of resource documents and environments, as written and located. Plain data: the rule ids
// are checked against the engine's rules by src/safety/settings.ts (config may not import engine).
import type { SourceLocation } from '../errors.js';
import { addressOf, type JsonObject, type JsonValue, type ResourceAddress, type ResourceKind } from '../model/resources.js';
import type { Project } from './project.js';
import type { DocumentKind } from './schemas.js';

export type SeverityValue = 'error' | 'warning' | 'off';
export type SeverityConfig = SeverityValue | Record<string, SeverityValue>;

export interface LocatedSuppression {
  rule: string;
  reason: string;
  location: SourceLocation;
  /** An environment's entry naming one of its resources (`suppress: [{rule, reason, address}]`). */
  address?: ResourceAddress;
}

export interface CustomRuleConfig {
  id: string;
  message: string;
  severity: SeverityConfig;
  kinds: ResourceKind[];
  schema: JsonObject;
  location: SourceLocation;
  schemaLocation: SourceLocation;
}

export interface PlanCustomRuleConfig {
  id: string;
  message: string;
  severity: SeverityConfig;
  over: 'change' | 'plan';
  schema: JsonObject;
  location: SourceLocation;
  schemaLocation: SourceLocation;
}

/** `policy.plan`: what the rules over the plan compare with, and custom rules over the plan's JSON. */
export interface PlanPolicyConfig {
  maxChangedAgents?: number;
  /** Environment → the earlier environment its agents' models must already be in. */
  modelsFrom: Record<string, { from: string; location: SourceLocation }>;
  custom: PlanCustomRuleConfig[];
}

export interface PolicyConfig {
  plan: PlanPolicyConfig;
  rules: Record<string, { severity: SeverityConfig; location: SourceLocation; environmentLocations: Record<string, SourceLocation> }>;
  thresholds: { subagentDepth?: number; subagentFanOut?: number };
  custom: CustomRuleConfig[];
  /** By resource address in the selected environment. */
  suppressions: Record<ResourceAddress, LocatedSuppression[]>;
}

const KIND_OF: Record<DocumentKind, ResourceKind> = { Agent: 'agent', Provider: 'provider', Connection: 'connection', Secret: 'secret', ApiKey: 'apiKey' };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSeverity(value: unknown): value is SeverityValue {
  return value === 'error' || value === 'warning' || value === 'off';
}

function severityOf(value: unknown): SeverityConfig | undefined {
  if (isSeverity(value)) return value;
  if (!isObject(value)) return undefined;
  const out: Record<string, SeverityValue> = {};
  for (const [key, item] of Object.entries(value)) if (isSeverity(item)) out[key] = item;
  return out;
}

function suppressionsOf(list: unknown, locate: (path: Array<string | number>) => SourceLocation, base: Array<string | number>): LocatedSuppression[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item, index) =>
    isObject(item) && typeof item.rule === 'string' && typeof item.reason === 'string'
      ? [
          {
            rule: item.rule,
            reason: item.reason,
            location: locate([...base, index, 'rule']),
            ...(typeof item.address === 'string' ? { address: item.address as ResourceAddress } : {}),
          },
        ]
      : [],
  );
}

/**
 * The policy configuration for one environment. Suppressions are keyed by the address the
 * resource has there; documents not present in the environment are skipped by the caller's
 * resource list (a suppression of a resource absent from it has nothing to match).
 */
export function policyConfigFor(project: Project, environment: string): PolicyConfig {
  const root = project.root.value as Record<string, unknown>;
  const locate = (path: Array<string | number>) => project.root.locate(path);
  const policy = isObject(root.policy) ? root.policy : {};
  const rules: PolicyConfig['rules'] = {};
  if (isObject(policy.rules)) {
    for (const [id, value] of Object.entries(policy.rules)) {
      const severity = severityOf(value);
      if (severity === undefined) continue;
      const environmentLocations: Record<string, SourceLocation> = {};
      if (isObject(value)) for (const key of Object.keys(value)) environmentLocations[key] = project.root.locate(['policy', 'rules', id, key], 'key');
      rules[id] = { severity, location: project.root.locate(['policy', 'rules', id], 'key'), environmentLocations };
    }
  }
  const thresholdsRaw = isObject(policy.thresholds) ? policy.thresholds : {};
  const thresholds: PolicyConfig['thresholds'] = {
    ...(typeof thresholdsRaw.subagentDepth === 'number' ? { subagentDepth: thresholdsRaw.subagentDepth } : {}),
    ...(typeof thresholdsRaw.subagentFanOut === 'number' ? { subagentFanOut: thresholdsRaw.subagentFanOut } : {}),
  };
  const custom: CustomRuleConfig[] = [];
  if (Array.isArray(policy.custom)) {
    policy.custom.forEach((item: unknown, index: number) => {
      if (!isObject(item) || typeof item.id !== 'string' || typeof item.message !== 'string' || !isObject(item.schema) || !Array.isArray(item.kinds)) return;
      const severity = severityOf(item.severity);
      if (severity === undefined) return;
      custom.push({
        id: item.id,
        message: item.message,
        severity,
        kinds: item.kinds.filter((kind): kind is ResourceKind => typeof kind === 'string') as ResourceKind[],
        schema: item.schema as JsonObject,
        location: locate(['policy', 'custom', index, 'id']),
        schemaLocation: locate(['policy', 'custom', index, 'schema']),
      });
    });
  }
  const suppressions: PolicyConfig['suppressions'] = {};
  const add = (address: ResourceAddress, items: LocatedSuppression[]) => {
    if (items.length > 0) suppressions[address] = [...(suppressions[address] ?? []), ...items];
  };
  const environmentEntry = isObject(root.environments) ? root.environments[environment] : undefined;
  const slug = project.environments[environment]?.slug ?? environment;
  if (isObject(environmentEntry)) {
    // An entry may name a resource of the environment (`address`): a plan rule's finding on a
    // resource the plan deletes has no document left to carry the suppression.
    for (const item of suppressionsOf(environmentEntry.suppress, locate, ['environments', environment, 'suppress']))
      add(item.address ?? addressOf('environment', slug), [item]);
  }
  for (const document of project.documents) {
    const value = document.source.value as Record<string, JsonValue> | null;
    if (!isObject(value)) continue;
    add(
      addressOf(KIND_OF[document.kind], document.name),
      suppressionsOf(value.suppress, (path) => document.source.locate(path), ['suppress']),
    );
  }
  return { rules, thresholds, custom, suppressions, plan: planPolicyOf(policy.plan, project) };
}

function planPolicyOf(value: unknown, project: Project): PlanPolicyConfig {
  const plan = isObject(value) ? value : {};
  const modelsFrom: PlanPolicyConfig['modelsFrom'] = {};
  if (isObject(plan.modelsFrom))
    for (const [environment, from] of Object.entries(plan.modelsFrom))
      if (typeof from === 'string') modelsFrom[environment] = { from, location: project.root.locate(['policy', 'plan', 'modelsFrom', environment]) };
  const custom: PlanCustomRuleConfig[] = [];
  if (Array.isArray(plan.custom)) {
    plan.custom.forEach((item: unknown, index: number) => {
      if (!isObject(item) || typeof item.id !== 'string' || typeof item.message !== 'string' || !isObject(item.schema)) return;
      const severity = severityOf(item.severity);
      if (severity === undefined) return;
      const base = ['policy', 'plan', 'custom', index];
      custom.push({
        id: item.id,
        message: item.message,
        severity,
        over: item.over === 'plan' ? 'plan' : 'change',
        schema: item.schema as JsonObject,
        location: project.root.locate([...base, 'id']),
        schemaLocation: project.root.locate([...base, 'schema']),
      });
    });
  }
  return { ...(typeof plan.maxChangedAgents === 'number' ? { maxChangedAgents: plan.maxChangedAgents } : {}), modelsFrom, custom };
}
