// The safety review of one environment: policy findings (located in the files) and, when the live
// state is known, the capability changes per agent; given the plan, the rules over the plan too.
// Used by check (offline, no plan), plan, apply, promote and rollback; the computation is the
// engine's, this module only gathers its inputs and locations.
import { relative, resolve } from 'node:path';
import { comparisonStateFor, specLocator, type Project, UNSET_ENV } from '../config/index.js';
import { type AgentCapabilities, type AgentSpec, computeCapabilities, type LockedSurfaces } from '../engine/capabilities.js';
import { diffAgentCapabilities, diffCapabilities } from '../engine/capability-diff.js';
import { computeIdentityReach, diffIdentityReach, grantsOf } from '../engine/identity-reach.js';
import type { AgentCapabilityDiff } from '../model/safety.js';
import { agentModels, blockingFindings, type EarlierEnvironment, evaluatePolicy, type PlanPolicyInput } from '../engine/policy/index.js';
import { planToJson } from '../render/json.js';
import type { Finding, SafetyReview } from '../model/safety.js';
import { ProblemsError, type SourceLocation } from '../errors.js';
import {
  addressOf,
  type ActualState,
  type DesiredResource,
  type DesiredState,
  type JsonObject,
  type Plan,
  type ResourceAddress,
  type ResourceKind,
} from '../model/resources.js';
import { effectiveState } from '../engine/effective-state.js';
import type { ToolSurfaceLock } from '../model/tool-lock.js';
import { policySettingsFor, type ResolvedPolicy } from './settings.js';
import { lazyProperty } from '../util/lazy-property.js';

export type { SafetyReview } from '../model/safety.js';

export interface ReviewInputs {
  project: Project;
  desired: DesiredState;
  /** The live state and the plan: they add the capability diff (the rules judge the configuration alone). */
  actual?: ActualState;
  /** The computed plan: with it the plan rules run too (plan, apply, promote, rollback; not check). */
  plan?: Plan;
  lock?: ToolSurfaceLock;
  cwd?: string;
  /**
   * With the live state, also the capabilities before → after per agent (default). apply, which
   * only refuses on blocking findings and prints no review, leaves it out: for thousands of agents
   * it is computing every agent's capabilities a second time, and the diff, before the first write.
   */
  capabilityChanges?: boolean;
  /**
   * What a scoped plan covers (owns:, forget:, --exclude set the rest aside): findings are kept
   * only for its resources, and the capability diff is of it alone. The rules still judge the
   * whole `desired`: an agent whose provider is excluded from this run uses a declared provider.
   */
  covered?: { desired: DesiredState; actual: ActualState };
  /** promote (from an environment) and rollback: what wrote the plan, for the rules it skips. */
  writtenBy?: WrittenBy;
}

/** The command whose writes are judged as a plan, and the environment a promote takes them from. */
export interface WrittenBy {
  command: 'promote' | 'roll back';
  from?: string;
}

/**
 * Whether `plan-model-not-in-earlier-environment` judges these writes: not a rollback (the way back
 * in an emergency, to a version that ran), nor a promote from the earlier environment itself (what
 * it promotes is what that environment runs, whatever its configuration says now).
 */
function comparesModels(modelsFrom: string, writtenBy: WrittenBy | undefined): boolean {
  return writtenBy?.command !== 'roll back' && writtenBy?.from !== modelsFrom;
}

export function surfacesFor(lock: ToolSurfaceLock | undefined, environment: string): LockedSurfaces | undefined {
  return lock?.environments[environment];
}

/** Locates findings in the project's files, relative to `cwd`. */
function findingLocator(
  project: Project,
  environment: string,
  cwd: string,
  resources: readonly DesiredResource[] = [],
): (finding: Finding) => SourceLocation | undefined {
  const locateSpec = specLocator(project, environment);
  // A grant has no document of its own: it is an item of its connection's `grants`.
  const grants = new Map(resources.flatMap((resource) => (resource.kind === 'grant' && resource.location ? [[resource.name, resource.location]] : [])));
  // path.relative and resolve cost more than the lookup itself, and a project has few files but
  // thousands of findings (a warning per agent): each file's name is worked out once.
  const fileNames = new Map<string, string>();
  const fileName = (file: string): string => {
    let name = fileNames.get(file);
    if (name === undefined) {
      name = relative(cwd, resolve(project.dir, file)) || file;
      fileNames.set(file, name);
    }
    return name;
  };
  return (finding) => {
    const slash = finding.address.indexOf('/');
    const kind = slash < 0 ? finding.address : finding.address.slice(0, slash);
    const name = slash < 0 ? '' : finding.address.slice(slash + 1);
    const location =
      kind === 'environment'
        ? project.root.locate(
            project.root.has(['environments', environment, 'settings'])
              ? ['environments', environment, 'settings', ...finding.path]
              : ['environments', environment],
            'key',
          )
        : kind === 'grant'
          ? grants.get(name)
          : locateSpec({ kind: kind as ResourceKind, name }, finding.path);
    if (!location) return undefined;
    return { ...location, file: fileName(location.file) };
  };
}

function agentsOf(resources: ReadonlyArray<{ kind: string; name: string; spec: JsonObject }>): AgentSpec[] {
  return resources.filter((resource) => resource.kind === 'agent').map((resource) => ({ name: resource.name, spec: resource.spec }));
}

function countsOf(findings: readonly Finding[]): SafetyReview['counts'] {
  return {
    // The errors are the findings apply refuses on: the count a summary shows is apply's verdict.
    errors: blockingFindings(findings).length,
    warnings: findings.filter((finding) => finding.severity === 'warning' && !finding.suppressed).length,
    suppressed: findings.filter((finding) => finding.suppressed).length,
  };
}

/** What every review of an environment starts from: its names, kind, policy settings and locked surfaces. */
function reviewContext(project: Project, desired: DesiredState, lock: ToolSurfaceLock | undefined, cwd: string) {
  const environment = desired.target.name;
  const environmentKind = project.environments[environment]?.settings?.kind;
  const kind = typeof environmentKind === 'string' ? environmentKind : undefined;
  const { settings, thresholds, plan } = policySettingsFor(project, environment, cwd);
  const surfaces = surfacesFor(lock, environment);
  const policyInput = {
    environment,
    environmentSlug: desired.target.slug,
    ...(kind ? { environmentKind: kind } : {}),
    ...(surfaces ? { surfaces } : {}),
    thresholds,
  };
  return { environment, kind, settings, surfaces, policyInput, planPolicy: plan };
}

/**
 * What the plan rules judge: the plan, its JSON document (built only when a custom plan rule reads
 * it) and, with `policy.plan.modelsFrom`, the agents' models as the earlier environment's
 * configuration declares them (offline, like check: its server is not read).
 */
function planPolicyInput(project: Project, plan: Plan, planPolicy: ResolvedPolicy['plan'], writtenBy: WrittenBy | undefined): PlanPolicyInput {
  let document: JsonObject | undefined;
  const input: PlanPolicyInput = {
    changes: plan.changes,
    get document() {
      document ??= planToJson(plan) as JsonObject;
      return document;
    },
  };
  if (planPolicy.maxChangedAgents !== undefined) input.maxChangedAgents = planPolicy.maxChangedAgents;
  if (planPolicy.modelsFrom && comparesModels(planPolicy.modelsFrom, writtenBy)) input.earlier = earlierEnvironment(project, planPolicy.modelsFrom);
  return input;
}

/**
 * The earlier environment's models, built without its `${env:}` values: a production job lacks
 * staging's variables, and a model that reads one is unknown rather than different. A configuration
 * that cannot be read at all says why in each finding.
 */
function earlierEnvironment(project: Project, environment: string): EarlierEnvironment {
  try {
    const models = agentModels(comparisonStateFor(project, environment).resources);
    for (const [name, model] of models) if (model.provider?.includes(UNSET_ENV) || model.model?.includes(UNSET_ENV)) models.set(name, { unknown: true });
    return { environment, models };
  } catch (error) {
    return { environment, models: new Map(), unreadable: unreadableReason(error) };
  }
}

function unreadableReason(error: unknown): string {
  if (!(error instanceof ProblemsError) || error.problems.length === 0) return error instanceof Error ? error.message : String(error);
  const [first] = error.problems;
  const where = first?.location ? `${first.location.file}:${first.location.line}:${first.location.col}: ` : '';
  const more = error.problems.length > 1 ? ` (and ${error.problems.length - 1} more)` : '';
  return `${where}${first?.message}${more}`;
}

/**
 * What the rules judge of an environment: its configuration, less the promoted agents whose source
 * is unknown offline (`online`: the live state was read, promotions resolved), each agent as its
 * `judgedSpec` says (a promoted version that is its source's configuration: that configuration).
 */
function judgedResources(desired: DesiredState, online: boolean): { promoted: DesiredResource[]; configured: DesiredResource[]; judged: DesiredResource[] } {
  const promoted = desired.resources.filter((resource) => resource.kind === 'agent' && resource.promotion && !online);
  const configured = promoted.length > 0 ? desired.resources.filter((resource) => !promoted.includes(resource)) : desired.resources;
  const judged = configured.some((resource) => resource.judgedSpec)
    ? configured.map((resource) => (resource.judgedSpec ? { ...resource, spec: resource.judgedSpec } : resource))
    : configured;
  return { promoted, configured, judged };
}

/**
 * validate's share of the verdict: the error-severity findings of the environment's configuration
 * (not suppressed), located relative to `cwd`; the rules at warning do not run.
 */
export function policyErrors(inputs: { project: Project; desired: DesiredState; lock?: ToolSurfaceLock; cwd: string }): Finding[] {
  const { project, desired, cwd } = inputs;
  const { environment, settings, policyInput } = reviewContext(project, desired, inputs.lock, cwd);
  const locate = findingLocator(project, environment, cwd, desired.resources);
  const { judged } = judgedResources(desired, false);
  return blockingFindings(evaluatePolicy({ ...policyInput, resources: judged }, settings, { errorsOnly: true })).map((finding) => {
    const location = locate(finding);
    return location ? { ...finding, location } : finding;
  });
}

export function reviewEnvironment(inputs: ReviewInputs): SafetyReview {
  const { project, desired } = inputs;
  const cwd = inputs.cwd ?? process.cwd();
  const { environment, kind, settings, surfaces, policyInput, planPolicy } = reviewContext(project, desired, inputs.lock, cwd);
  const notes: string[] = [];
  const plan = inputs.plan ? planPolicyInput(project, inputs.plan, planPolicy, inputs.writtenBy) : undefined;
  const { promoted, configured, judged } = judgedResources(desired, inputs.actual !== undefined);
  if (promoted.length > 0)
    notes.push(`not checked offline (promoted; plan reads the source version): ${promoted.map((resource) => `agent/${resource.name}`).join(', ')}`);
  // The rules judge the configuration, not what the server holds: a field the YAML leaves to the
  // server is unknown to them (judged as its worst value), so check before the first apply, plan,
  // apply and every later apply give one verdict whatever the server filled in (docs/policy.md).
  const locate = findingLocator(project, environment, cwd, desired.resources);
  const capabilitiesConfigured = computeCapabilities(agentsOf(judged), surfaces);
  // The findings are evaluatePolicy's new objects, given to the review alone. Their location is
  // worked out when first read: a plan of 1,000 agents has thousands of findings and its text shows
  // a few of each rule (render/safety.ts folds the rest), while locating every one was a large part
  // of the review. JSON, annotations and apply's refusal read every location they print.
  const location = lazyProperty(locate);
  const setAside = inputs.covered ? setAsideAddresses(desired, inputs.covered.desired) : undefined;
  const findings = evaluatePolicy({ ...policyInput, resources: judged, capabilities: capabilitiesConfigured, ...(plan ? { plan } : {}) }, settings)
    .filter((finding) => !setAside?.has(finding.address))
    .map((finding) => Object.defineProperty(finding, 'location', location));
  const unknown = [...new Set([...capabilitiesConfigured.values()].flatMap((agent) => agent.unknownConnections))].sort();
  if (unknown.length > 0) {
    const why = inputs.lock ? `agentform.lock.yaml has no entry for them in ${environment}` : 'there is no agentform.lock.yaml';
    notes.push(
      `tools of connection${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} unknown (${why}): treated as destructive; run agentform lock -e ${environment}`,
    );
  }
  const review: SafetyReview = { environment, ...(kind ? { environmentKind: kind } : {}), findings, notes, counts: countsOf(findings) };
  const actual = inputs.covered?.actual ?? inputs.actual;
  if (actual && inputs.capabilityChanges !== false) {
    // The capability diff is what the server runs, before and after: each configured resource as
    // apply writes it (a field the YAML leaves out keeps its remote value), and what only the server
    // has. A plan whose apply sends no write leaves every agent as it is.
    const changes = inputs.plan ?? { changes: [] };
    if (inputs.plan !== undefined && changes.changes.every((change) => change.action === 'no-op' || change.action === 'unmanaged')) {
      review.capabilityChanges = [];
      review.identityChanges = [];
    } else {
      const covered = inputs.covered ? judgedResources(inputs.covered.desired, true).configured : configured;
      const after = effectiveState(covered, actual, changes);
      const before = computeCapabilities(agentsOf(actual.resources), surfaces);
      const afterCapabilities = computeCapabilities(agentsOf(after), surfaces);
      review.capabilityChanges = diffCapabilities(before, afterCapabilities);
      // Who reaches what through which grant: a grant or an identity.required flip changes no tool.
      review.identityChanges = diffIdentityReach(
        computeIdentityReach(agentsOf(actual.resources), before, grantsOf(actual.resources)),
        computeIdentityReach(agentsOf(after), afterCapabilities, grantsOf(after)),
      );
    }
  }
  return review;
}

/** The declared resources a scoped plan leaves out. */
function setAsideAddresses(desired: DesiredState, covered: DesiredState): Set<ResourceAddress> {
  const kept = new Set(covered.resources.map((resource) => addressOf(resource.kind, resource.name)));
  return new Set(desired.resources.map((resource) => addressOf(resource.kind, resource.name)).filter((address) => !kept.has(address)));
}

/**
 * promote and rollback: the environment's review with the agents they write in place of its
 * configuration of them (each as judged-definition.ts says: the configuration a version was made
 * from, or the version whole), with the target's severities and suppressions. The whole
 * environment is judged, as apply judges it: a write that apply would refuse is refused here too.
 */
export function reviewPromotion(inputs: {
  project: Project;
  desired: DesiredState;
  promoted: ReadonlyMap<string, JsonObject>;
  /** The writes as a plan: the plan rules judge it as they judge apply's. */
  plan?: Plan;
  writtenBy?: WrittenBy;
  lock?: ToolSurfaceLock;
  cwd?: string;
  notes?: string[];
}): SafetyReview {
  const { project, desired, promoted } = inputs;
  const review = reviewEnvironment({
    project,
    desired: withWrittenAgents(desired, promoted),
    ...(inputs.plan ? { plan: inputs.plan } : {}),
    ...(inputs.writtenBy ? { writtenBy: inputs.writtenBy } : {}),
    ...(inputs.lock ? { lock: inputs.lock } : {}),
    ...(inputs.cwd ? { cwd: inputs.cwd } : {}),
  });
  const written = new Set([...promoted.keys()].map((name) => `agent/${name}`));
  // A written definition is not in the target's files: its findings point at the agent's document.
  const cwd = inputs.cwd ?? process.cwd();
  const locate = findingLocator(project, desired.target.name, cwd, desired.resources);
  const findings = review.findings.map((finding): Finding => {
    if (!written.has(finding.address)) return finding;
    const location = locate({ ...finding, path: [] });
    const { location: _lazy, ...rest } = finding;
    return location ? { ...rest, location } : rest;
  });
  return { ...review, findings, notes: [...(inputs.notes ?? []), ...review.notes] };
}

/**
 * The environment's configuration with the agent definitions a command writes in place of (or
 * beside) its agents. What is written is known, so a declared `promote:` no longer applies to it.
 */
export function withWrittenAgents(desired: DesiredState, definitions: ReadonlyMap<string, JsonObject>): DesiredState {
  const resources: DesiredResource[] = desired.resources.map((resource) => {
    const definition = resource.kind === 'agent' ? definitions.get(resource.name) : undefined;
    if (!definition) return resource;
    const { promotion: _declared, judgedSpec: _judged, ...declared } = resource;
    return { ...declared, spec: definition };
  });
  for (const [name, spec] of definitions) {
    if (!resources.some((resource) => resource.kind === 'agent' && resource.name === name))
      resources.push({ kind: 'agent', name, spec, writeOnly: {}, references: [] });
  }
  return { ...desired, resources };
}

/** One agent's capability changes between two definitions (promote: the target's latest vs the source version). */
export function agentCapabilityChange(
  agent: string,
  before: JsonObject | undefined,
  after: JsonObject,
  others: readonly AgentSpec[],
  surfaces: LockedSurfaces | undefined,
): AgentCapabilityDiff | undefined {
  const capabilitiesOf = (spec: JsonObject): AgentCapabilities | undefined =>
    computeCapabilities([{ name: agent, spec }, ...others.filter((other) => other.name !== agent)], surfaces).get(agent);
  return diffAgentCapabilities(agent, before ? capabilitiesOf(before) : undefined, capabilitiesOf(after));
}
