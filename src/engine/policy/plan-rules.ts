// Rules over the change, not the resources: the built-in plan rules (destroy, replace, how many
// agents change, a model change an earlier environment does not have) and custom JSON Schema rules
// over the plan's JSON document. Pure: the plan and the earlier environment's models come in as values.
import type { ValidateFunction } from 'ajv';
import { addressOf, type JsonObject, type ResourceAddress, type ResourceChange } from '../../model/resources.js';
import { describe } from './custom.js';
import { type AgentModel, type PlanRule, type PlanRuleContext, type RawFinding, STRICT_IN_PRODUCTION } from './types.js';

/**
 * Destroying or replacing is often routine (a prune, a key rotation, the example CI recipes prune
 * production), so by default it is a warning in production and not checked elsewhere: a team that
 * wants production destroys refused sets the rule to error there.
 */
const WARN_IN_PRODUCTION = { other: 'off', production: 'warning' } as const;

/** Actions that write: the changes the plan rules count. */
function writes(change: ResourceChange): boolean {
  return change.action !== 'no-op' && change.action !== 'unmanaged';
}

function environmentAddress(context: PlanRuleContext): ResourceAddress {
  return addressOf('environment', context.environmentSlug ?? context.environment);
}

function actionRule(id: string, action: 'delete' | 'replace', rationale: string, verb: string): PlanRule {
  return {
    id,
    rationale,
    severity: WARN_IN_PRODUCTION,
    check: (context) =>
      context.plan.changes
        .filter((change) => change.action === action)
        .map((change) => ({
          address: change.address,
          path: [],
          message: `the plan ${verb} it in ${context.environment}${change.reason ? ` (${change.reason})` : ''}`,
        })),
  };
}

export const planDestroy = actionRule('plan-destroy', 'delete', 'A destroy cannot be undone by another apply: its data and history go with it.', 'destroys');
export const planReplace = actionRule(
  'plan-replace',
  'replace',
  'A replace deletes the live resource and creates a new one: its id, history and (for a key) its token change.',
  'replaces',
);

export const planChangedAgents: PlanRule = {
  id: 'plan-changed-agents',
  rationale: 'A change to many agents at once has a large blast radius; smaller steps are easier to review and roll back.',
  severity: STRICT_IN_PRODUCTION,
  check: (context) => {
    const max = context.plan.maxChangedAgents;
    if (max === undefined) return [];
    const changed = context.plan.changes.filter((change) => change.kind === 'agent' && writes(change));
    if (changed.length <= max) return [];
    return [
      {
        address: environmentAddress(context),
        path: [],
        message: `the plan changes ${changed.length} agents in ${context.environment}, more than policy.plan.maxChangedAgents (${max})`,
      },
    ];
  },
};

/** Provider types by provider name: a provider's name can differ per environment, its type is what runs. */
function providerTypes(resources: ReadonlyArray<{ kind: string; name: string; spec: JsonObject }>): Map<string, string> {
  const types = new Map<string, string>();
  for (const resource of resources) if (resource.kind === 'provider' && typeof resource.spec.type === 'string') types.set(resource.name, resource.spec.type);
  return types;
}

function modelOf(spec: JsonObject | undefined, types: ReadonlyMap<string, string>): AgentModel {
  const model = spec?.model;
  if (typeof model !== 'object' || model === null || Array.isArray(model)) return {};
  const providerType = typeof model.provider === 'string' ? types.get(model.provider) : undefined;
  return {
    ...(typeof model.provider === 'string' ? { provider: model.provider } : {}),
    ...(providerType ? { providerType } : {}),
    ...(typeof model.model === 'string' ? { model: model.model } : {}),
  };
}

/**
 * The same model: the same `model.model`, on the same type of provider when both types are known.
 * The provider's resource name is not compared: overlays may name it differently per environment.
 */
function sameModel(a: AgentModel, b: AgentModel): boolean {
  return a.model === b.model && (a.providerType === undefined || b.providerType === undefined || a.providerType === b.providerType);
}

const shown = (model: AgentModel) => `${model.provider ?? '(provider not set)'}/${model.model ?? '(model not set)'}`;

/** A change that writes an agent's `model.provider` or `model.model` (a create writes both). */
function changesModel(change: ResourceChange): boolean {
  if (change.kind !== 'agent' || !writes(change) || change.action === 'delete') return false;
  return change.fields.some((field) => field.path === 'model' || field.path.startsWith('model.provider') || field.path.startsWith('model.model'));
}

export const planModelNotInEarlierEnvironment: PlanRule = {
  id: 'plan-model-not-in-earlier-environment',
  rationale: 'A model change should run in an earlier environment (staging) before it reaches this one.',
  severity: STRICT_IN_PRODUCTION,
  check: (context) => {
    const earlier = context.plan.earlier;
    if (!earlier) return [];
    const agents = new Map(context.byKind('agent').map((agent) => [agent.name, agent.spec]));
    const types = providerTypes(context.byKind('provider'));
    return context.plan.changes.filter(changesModel).flatMap((change): RawFinding[] => {
      const after = modelOf(agents.get(change.name), types);
      const there = earlier.models.get(change.name);
      if (!earlier.unreadable && there && !there.unknown && sameModel(there, after)) return [];
      const why = earlier.unreadable
        ? `could not read ${earlier.environment}'s configuration: ${earlier.unreadable}`
        : !there
          ? `${earlier.environment}'s configuration does not declare agent ${change.name}`
          : there.unknown
            ? `${earlier.environment}'s model of agent ${change.name} is not known here (it reads an \${env:} variable this run does not set)`
            : `${earlier.environment}'s configuration has ${shown(there)}`;
      return [{ address: change.address, path: ['model'], message: `the model changes to ${shown(after)}, not yet in ${earlier.environment}: ${why}` }];
    });
  },
};

export const PLAN_RULES: readonly PlanRule[] = [planDestroy, planReplace, planChangedAgents, planModelNotInEarlierEnvironment];

/** Every agent's model as an environment's configuration declares it: what `modelsFrom` compares with. */
export function agentModels(resources: ReadonlyArray<{ kind: string; name: string; spec: JsonObject }>): Map<string, AgentModel> {
  const types = providerTypes(resources);
  return new Map(resources.filter((resource) => resource.kind === 'agent').map((resource) => [resource.name, modelOf(resource.spec, types)]));
}

/** A custom rule over the plan: a JSON Schema each change (`over: change`) or the whole plan must satisfy. */
export interface PlanCustomRule {
  id: string;
  message: string;
  over: 'change' | 'plan';
  schema: JsonObject;
}

export type CompiledPlanCustomRule = PlanCustomRule & { validate: ValidateFunction };

/** A change's JSON as the plan document holds it (its entry of `changes[]`). */
function changeDocuments(document: JsonObject): JsonObject[] {
  const changes = document.changes;
  return Array.isArray(changes)
    ? changes.filter((change): change is JsonObject => typeof change === 'object' && change !== null && !Array.isArray(change))
    : [];
}

export function evaluatePlanCustomRule(rule: CompiledPlanCustomRule, context: PlanRuleContext): RawFinding[] {
  const failure = (value: JsonObject, root: string): string | undefined => {
    if (rule.validate(value)) return undefined;
    const first = rule.validate.errors?.[0];
    return `${rule.message}${first ? ` (${describe(first, root)})` : ''}`;
  };
  if (rule.over === 'plan') {
    const message = failure(context.plan.document, 'plan');
    return message ? [{ address: environmentAddress(context), path: [], message }] : [];
  }
  return changeDocuments(context.plan.document)
    .filter((change) => change.action !== 'no-op' && change.action !== 'unmanaged')
    .flatMap((change): RawFinding[] => {
      const message = failure(change, 'change');
      return message ? [{ address: String(change.address) as ResourceAddress, path: [], message }] : [];
    });
}
