// The policy configuration of agentform.yaml, checked against the engine's rules and turned into
// the engine's settings: unknown rule ids, unknown environment names, a custom rule reusing a
// built-in id and a custom schema that does not compile are located problems (file:line:col).
import { relative, resolve } from 'node:path';
import { policyConfigFor } from '../config/policy.js';
import type { Project } from '../config/index.js';
import { didYouMean } from '../config/suggest.js';
import {
  BUILTIN_RULE_IDS,
  PLAN_RULE_IDS,
  compileCustomRules,
  DEFAULT_THRESHOLDS,
  type PolicySettings,
  type PolicyThresholds,
  type SeveritySetting,
  type Suppression,
} from '../engine/policy/index.js';
import { ProblemsError, type SourceLocation } from '../errors.js';
import type { ResourceAddress } from '../model/resources.js';

export interface ResolvedPolicy {
  settings: PolicySettings;
  thresholds: PolicyThresholds;
  /** What the plan rules of this environment compare with (policy.plan). */
  plan: { maxChangedAgents?: number; modelsFrom?: string };
}

/** The engine's settings for one environment; throws ProblemsError (located) when the configuration is wrong. */
export function policySettingsFor(project: Project, environment: string, cwd: string = process.cwd()): ResolvedPolicy {
  const config = policyConfigFor(project, environment);
  const problems: Array<{ message: string; location: SourceLocation }> = [];
  const customIds = [...config.custom, ...config.plan.custom].map((rule) => rule.id);
  const builtin = [...BUILTIN_RULE_IDS, ...PLAN_RULE_IDS];
  const known = [...builtin, ...customIds];
  const environmentNames = Object.keys(project.environments);
  const checkEnvironments = (setting: SeveritySetting, locations: Record<string, SourceLocation>, fallback: SourceLocation) => {
    if (typeof setting === 'string') return;
    for (const name of Object.keys(setting)) {
      if (name !== '*' && !environmentNames.includes(name))
        problems.push({
          message: `unknown environment "${name}"${didYouMean(name, environmentNames)} (agentform.yaml declares ${environmentNames.join(', ')})`,
          location: locations[name] ?? fallback,
        });
    }
  };
  for (const [id, rule] of Object.entries(config.rules)) {
    if (!known.includes(id))
      problems.push({
        message: `policy.rules: unknown rule "${id}"${didYouMean(id, known)} (docs/policy.md lists the built-in rules)`,
        location: rule.location,
      });
    checkEnvironments(rule.severity, rule.environmentLocations, rule.location);
  }
  const seen = new Set<string>();
  const checkCustom = (
    section: string,
    rules: ReadonlyArray<{ id: string; severity: SeveritySetting; location: SourceLocation; schemaLocation: SourceLocation }>,
  ) => {
    for (const rule of rules) {
      if (builtin.includes(rule.id))
        problems.push({ message: `${section}: "${rule.id}" is a built-in rule; give the custom rule its own id`, location: rule.location });
      if (seen.has(rule.id)) problems.push({ message: `${section}: two rules have the id "${rule.id}"`, location: rule.location });
      seen.add(rule.id);
      checkEnvironments(rule.severity, {}, rule.location);
    }
  };
  checkCustom('policy.custom', config.custom);
  checkCustom('policy.plan.custom', config.plan.custom);
  const { compiled, errors } = compileCustomRules(config.custom);
  for (const error of errors)
    problems.push({ message: error.message, location: (config.custom[error.index] as (typeof config.custom)[number]).schemaLocation });
  const planCompiled = compileCustomRules(config.plan.custom);
  for (const error of planCompiled.errors)
    problems.push({ message: error.message, location: (config.plan.custom[error.index] as (typeof config.plan.custom)[number]).schemaLocation });
  for (const [name, entry] of Object.entries(config.plan.modelsFrom)) {
    for (const named of [name, entry.from])
      if (!environmentNames.includes(named))
        problems.push({
          message: `policy.plan.modelsFrom: unknown environment "${named}"${didYouMean(named, environmentNames)} (agentform.yaml declares ${environmentNames.join(', ')})`,
          location: entry.location,
        });
    if (name === entry.from) problems.push({ message: `policy.plan.modelsFrom: ${name} cannot take its models from itself`, location: entry.location });
  }
  const suppressions: Record<ResourceAddress, Suppression[]> = {};
  for (const [address, items] of Object.entries(config.suppressions) as Array<[ResourceAddress, (typeof config.suppressions)[ResourceAddress]]>) {
    for (const item of items) {
      if (!known.includes(item.rule))
        problems.push({ message: `suppress: unknown rule "${item.rule}"${didYouMean(item.rule, known)}`, location: item.location });
    }
    suppressions[address] = items.map(({ rule, reason }) => ({ rule, reason }));
  }
  if (problems.length > 0) {
    throw new ProblemsError(
      `the policy configuration is invalid: ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
      problems.map((problem) => ({
        message: problem.message,
        location: { ...problem.location, file: relative(cwd, resolve(project.dir, problem.location.file)) || problem.location.file },
      })),
    );
  }
  const severities: Record<string, SeveritySetting> = {};
  for (const [id, rule] of Object.entries(config.rules)) severities[id] = rule.severity;
  const custom = compiled.map((rule, index) => ({ ...rule, severity: (config.custom[index] as (typeof config.custom)[number]).severity }));
  const planCustom = planCompiled.compiled.map((rule, index) => ({
    ...rule,
    severity: (config.plan.custom[index] as (typeof config.plan.custom)[number]).severity,
  }));
  const modelsFrom = config.plan.modelsFrom[environment]?.from;
  return {
    settings: { severities, custom, suppressions, planCustom },
    thresholds: { ...DEFAULT_THRESHOLDS, ...config.thresholds },
    plan: {
      ...(config.plan.maxChangedAgents !== undefined ? { maxChangedAgents: config.plan.maxChangedAgents } : {}),
      ...(modelsFrom ? { modelsFrom } : {}),
    },
  };
}
