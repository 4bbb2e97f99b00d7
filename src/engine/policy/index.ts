// Policy checks: the built-in rules, custom rules, severities per environment, suppressions.
//   evaluatePolicy(input, config) → every finding, with its severity resolved and suppressions
//   applied; pure (the lock and the configuration come in as values).
import type { DesiredResource, ResourceAddress, ResourceKind } from '../../model/resources.js';
import { computeCapabilities } from '../capabilities.js';
import { fallbackProviderWithoutSecret, identityNotRequiredWithGrants, subagentDepthRule } from './agent-rules.js';
import { controlKeyWithoutExpiry, environmentSpendCapsMissing, keySpendCapsMissing, limitsMissing } from './budget-rules.js';
import { type CompiledCustomRule, evaluateCustomRule } from './custom.js';
import { type CompiledPlanCustomRule, evaluatePlanCustomRule, PLAN_RULES } from './plan-rules.js';
import { grantScopeNotAllowed } from './identity-rules.js';
import { sandboxToolsTooWide, sandboxUnrestrictedEgress } from './sandbox-rules.js';
import { decisionExpiryAllows, defaultAllowWithoutHook, destructiveToolWithoutDecision, hookFailsOpen } from './tool-rules.js';
import type { Finding } from '../../model/safety.js';
import type { BuiltinRule, DefaultSeverity, PlanRuleContext, PolicyInput, RawFinding, RuleContext, Severity } from './types.js';

export type { BuiltinRule, Finding, PolicyInput, PolicyThresholds, Severity } from './types.js';
export { DEFAULT_THRESHOLDS } from './types.js';
export { compileCustomRules, type CompiledCustomRule, type CustomRule } from './custom.js';
export { agentModels, PLAN_RULES, type CompiledPlanCustomRule, type PlanCustomRule } from './plan-rules.js';
export type { AgentModel, EarlierEnvironment, PlanPolicyInput } from './types.js';

export const BUILTIN_RULES: readonly BuiltinRule[] = [
  destructiveToolWithoutDecision,
  defaultAllowWithoutHook,
  hookFailsOpen,
  decisionExpiryAllows,
  sandboxUnrestrictedEgress,
  sandboxToolsTooWide,
  limitsMissing,
  environmentSpendCapsMissing,
  keySpendCapsMissing,
  controlKeyWithoutExpiry,
  identityNotRequiredWithGrants,
  grantScopeNotAllowed,
  subagentDepthRule,
  fallbackProviderWithoutSecret,
];

/** The ids of the built-in rules over the resources (PLAN_RULE_IDS: over the plan). */
export const BUILTIN_RULE_IDS: readonly string[] = BUILTIN_RULES.map((rule) => rule.id);
export const PLAN_RULE_IDS: readonly string[] = PLAN_RULES.map((rule) => rule.id);

/** `error` everywhere, or per environment name with `*` for the others. */
export type SeveritySetting = Severity | Readonly<Record<string, Severity>>;

export interface Suppression {
  rule: string;
  reason: string;
}

export interface PolicySettings {
  /** Severity overrides by rule id (built-in or custom). */
  severities: Readonly<Record<string, SeveritySetting>>;
  custom: ReadonlyArray<CompiledCustomRule & { severity: SeveritySetting }>;
  /** Custom rules over the plan's JSON document (`policy.plan.custom`). */
  planCustom?: ReadonlyArray<CompiledPlanCustomRule & { severity: SeveritySetting }>;
  /** Suppressions by resource address. */
  suppressions: Readonly<Record<ResourceAddress, readonly Suppression[]>>;
}

export const NO_SETTINGS: PolicySettings = { severities: {}, custom: [], suppressions: {} };

function settingFor(setting: SeveritySetting | undefined, environment: string): Severity | undefined {
  if (setting === undefined) return undefined;
  if (typeof setting === 'string') return setting;
  return setting[environment] ?? setting['*'];
}

/** The severity of a rule in an environment: configured, else its default for the environment's kind. */
export function severityFor(
  defaults: DefaultSeverity,
  setting: SeveritySetting | undefined,
  environment: string,
  environmentKind: string | undefined,
): Severity {
  return settingFor(setting, environment) ?? (environmentKind === 'production' ? defaults.production : defaults.other);
}

function contextOf(input: PolicyInput): RuleContext {
  const byKind = new Map<ResourceKind, DesiredResource[]>();
  for (const resource of input.resources) {
    const list = byKind.get(resource.kind);
    if (list) list.push(resource);
    else byKind.set(resource.kind, [resource]);
  }
  // Computed when a rule first reads them: validate runs only the rules at error, which may not.
  let capabilities = input.capabilities;
  return {
    ...input,
    get capabilities() {
      return (capabilities ??= computeCapabilities(byKind.get('agent') ?? [], input.surfaces));
    },
    byKind: (kind) => byKind.get(kind) ?? [],
  };
}

function compareFindings(a: Finding, b: Finding): number {
  const severity = (finding: Finding) => (finding.suppressed ? 2 : finding.severity === 'error' ? 0 : 1);
  return (
    severity(a) - severity(b) ||
    (a.address < b.address ? -1 : a.address > b.address ? 1 : 0) ||
    (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0) ||
    (a.message < b.message ? -1 : 1)
  );
}

/**
 * Every finding of the environment: errors first, then warnings, then suppressed ones
 * (`errorsOnly`: only the rules at error severity run, for validate's verdict).
 */
export function evaluatePolicy(input: PolicyInput, settings: PolicySettings = NO_SETTINGS, options: { errorsOnly?: boolean } = {}): Finding[] {
  const context = contextOf(input);
  const findings: Finding[] = [];
  const add = (rule: string, severity: Severity, raw: RawFinding[], custom: boolean) => {
    if (severity === 'off') return;
    for (const finding of raw) {
      const suppression = settings.suppressions[finding.address]?.find((item) => item.rule === rule);
      // Spelled out, not spread from the raw finding: V8 gave each spread copy a hidden class of its
      // own, more memory for each of a large plan's many findings.
      const added: Finding = { address: finding.address, path: finding.path, message: finding.message, rule, severity };
      if (custom) added.custom = true;
      if (suppression) added.suppressed = { reason: suppression.reason };
      findings.push(added);
    }
  };
  for (const rule of BUILTIN_RULES) {
    const severity = severityFor(rule.severity, settings.severities[rule.id], input.environment, input.environmentKind);
    if (severity === 'error' || (severity === 'warning' && !options.errorsOnly)) add(rule.id, severity, rule.check(context), false);
  }
  for (const rule of settings.custom) {
    const severity = settingFor(settings.severities[rule.id], input.environment) ?? settingFor(rule.severity, input.environment) ?? 'off';
    if (severity === 'error' || (severity === 'warning' && !options.errorsOnly)) add(rule.id, severity, evaluateCustomRule(rule, input.resources), true);
  }
  // The plan rules judge the change, so they run only where there is a plan (not in check or validate).
  if (context.plan) {
    // Not a spread copy: that would read the lazy capabilities getter of the context.
    const planContext = context as PlanRuleContext;
    for (const rule of PLAN_RULES) {
      const severity = severityFor(rule.severity, settings.severities[rule.id], input.environment, input.environmentKind);
      if (severity === 'error' || (severity === 'warning' && !options.errorsOnly)) add(rule.id, severity, rule.check(planContext), false);
    }
    for (const rule of settings.planCustom ?? []) {
      const severity = settingFor(settings.severities[rule.id], input.environment) ?? settingFor(rule.severity, input.environment) ?? 'off';
      if (severity === 'error' || (severity === 'warning' && !options.errorsOnly)) add(rule.id, severity, evaluatePlanCustomRule(rule, planContext), true);
    }
  }
  return findings.sort(compareFindings);
}

/** Findings that stop apply: error severity, not suppressed. */
export function blockingFindings(findings: readonly Finding[]): Finding[] {
  return findings.filter((finding) => finding.severity === 'error' && !finding.suppressed);
}
