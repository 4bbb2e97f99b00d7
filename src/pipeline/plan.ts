// The "plan" half of the pipeline: read the live state (or take the read-ahead), resolve
// declarative promotions, match token files to live keys, and compute the plan. Each stage is a
// layer of its own; this module only sequences them.
import { credentialKeyProblems, reconcileKeyTokenFiles } from '../engine/api-key-files.js';
import { ignoreRulesOf } from '../config/index.js';
import { keepIgnored } from '../engine/ignore.js';
import { loadAdoptionBase } from './adoption-base.js';
import { computePlan } from '../engine/plan.js';
import { markTemplateSources } from './template-sources.js';
import { markProtected, protectedLosses, refuseProtectedChanges, refuseTargetsOutOfScope, scopeStates, unmatchedRuleWarnings } from '../engine/ownership.js';
import { ownershipRulesOf, patternProblem } from '../config/ownership.js';
import { UserError } from '../errors.js';
import { addressOf, type ActualResource, type ActualState, type DesiredState, type Plan, type ResourceAddress } from '../model/resources.js';
import { refuseOnMissingReferences } from '../promotion/missing-references.js';
import { missingReferencesOfPlan } from '../promotion/planned-references.js';
import { resolvePromotions, type ResolvedPromotions } from '../promotion/resolve.js';
import { readActualState } from '../state/read.js';
import type { Session } from './session.js';
import { SourceSessions } from './sources.js';
import { applyStrictTools } from './strict-tools.js';
import { readTokenFiles, type TokenFileSnapshot } from './token-files.js';

/** How to plan (what to open is OpenInputs). */
export interface PlanInputs {
  /** Plan deletes of remote resources not in the configuration; default: the environment's `prune`. */
  prune?: boolean;
  allowMassDelete?: boolean;
  targets?: ResourceAddress[];
  /** --exclude globs: what matches is neither created, changed nor deleted. */
  excludes?: string[];
  /** --base: the revision or directory whose configuration tells adoptions from updates. */
  base?: string;
  /**
   * drift: the plan is only read, so what protection would refuse is a warning instead; a check
   * that never writes reports differences rather than failing on them.
   */
  reportOnly?: boolean;
}

export interface PlanRun extends Session {
  actual: ActualState;
  plan: Plan;
  /** By declared key name: its token file as the plan saw it (apply writes only over exactly that). */
  tokenFiles: Map<string, TokenFileSnapshot>;
  /** The scopes of the API key this run uses, when its record could be read; undefined: unknown. */
  credentialScopes?: string[];
  /** The address of the API key this run authenticates with, when its record could be read. */
  credentialKey?: ResourceAddress;
  /**
   * The states the plan was computed from: `desired` and `actual` less what owns:, forget: and
   * --exclude set aside (engine/ownership.ts). A saved plan fingerprints these, so what another
   * project changes does not make it stale.
   */
  planned: { desired: DesiredState; actual: ActualState };
}

export async function planSession(session: Session, inputs: PlanInputs = {}): Promise<PlanRun> {
  // An --exclude that can never match (agents/x: a wrong kind) would exclude nothing, silently.
  for (const pattern of inputs.excludes ?? []) {
    const problem = patternProblem(pattern, '--exclude');
    if (problem) throw new UserError(problem);
  }
  const reading = session.takeReadAhead() ?? readActualState(session.client, session.desired.target.slug);
  // The base is read (git) while the live state is on the wire.
  const loadingBase = inputs.base === undefined ? undefined : loadAdoptionBase(session.desired.projectDir, inputs.base, session.desired.target.name);
  const [read, base] = await Promise.all([reading, loadingBase]);
  const ownKey = ownKeyOf(read, session.token);
  // Every live key is in the view, the one this run authenticates with too: a plan made with a
  // read key must see what the apply with a control key sees (saved plans compare the two). The
  // one exception is the key a local control plane hands agentform: every run on it uses that key.
  const unreconciled = session.isLocal ? withoutLocalPlaneKey(read, session.desired, ownKey) : read;
  const credentialScopes = ownKey?.spec.scopes;
  // Declarative promotion: promoted agents become the source version's definition before diffing.
  const sources = new SourceSessions(session.project, session.run);
  let promoted: ResolvedPromotions;
  try {
    promoted = await resolvePromotions(session.project, session.desired, unreconciled, sources);
  } finally {
    await sources.close();
  }
  // Which live key each token file belongs to decides no-op or replace, and which duplicate stays.
  const tokenFiles = await readTokenFiles(promoted.desired);
  const reconciled = reconcileKeyTokenFiles(promoted.desired, unreconciled, {
    files: new Map([...tokenFiles].map(([name, file]) => [name, file.content])),
    ...(session.token ? { ownToken: session.token } : {}),
  });
  // Ignored fields take their live values here, before the plan: every write path plans through
  // this function, so none of them ever reverts one (the one verdict of plan, apply and saved plans).
  const { actual } = reconciled;
  // Strict mode: the tool policies the lock implies replace the written ones before anything compares them.
  const strict = await applyStrictTools(reconciled.desired, session.desired);
  const kept = keepIgnored(strict.desired, actual, ignoreRulesOf(session.project.root));
  const { desired } = kept;
  const rules = ownershipRulesOf(session.project, session.desired.target.name);
  const scoped = scopeStates(desired, actual, { ...rules, excludes: inputs.excludes ?? [] });
  refuseTargetsOutOfScope(inputs.targets ?? [], scoped.scope, actual);
  // What the plan sets aside (forgotten, excluded) has no ignored differences to list either.
  const setAside = new Set(scoped.scope?.setAside.map((resource) => resource.address));
  const ignored = kept.ignored.filter((difference) => !setAside.has(difference.address));
  // The protect: list marks what it matches as `protect: true` does: one code path for both.
  const planned = { desired: markProtected(scoped.desired, rules.protect), actual: scoped.actual };
  const plan = computePlan(planned.desired, planned.actual, {
    prune: inputs.prune ?? session.desired.target.prune,
    pruneApiKeys: session.desired.target.pruneApiKeys === true,
    allowMassDelete: inputs.allowMassDelete ?? false,
    ...(session.desired.target.maxDeleteShare !== undefined ? { maxDeleteShare: session.desired.target.maxDeleteShare } : {}),
    ...(inputs.targets && inputs.targets.length > 0 ? { targets: inputs.targets } : {}),
    ...(base && 'base' in base ? { adoption: base.base } : {}),
    ...(inputs.reportOnly ? { reportProtected: true } : {}),
    ...(scoped.scope ? { scoped: true } : {}),
  });
  markTemplateSources(plan, session.project, session.desired.target.name);
  if (base && 'base' in base) plan.adoptionBase = base.base.label;
  if (base && 'warning' in base) plan.warnings.push(base.warning);
  if (inputs.reportOnly) plan.warnings.push(...protectedLosses(plan, rules.protect).map((loss) => `${loss}: a plan that writes refuses this`));
  else refuseProtectedChanges(plan, rules.protect);
  plan.warnings.push(...unmatchedRuleWarnings(rules, desired, actual, inputs.excludes));
  if (scoped.scope) plan.scope = scoped.scope;
  // A promoted definition may name what this environment neither declares nor runs.
  refuseOnMissingReferences(
    missingReferencesOfPlan(
      desired,
      actual,
      plan,
      promoted.promotions.map((promotion) => promotion.name),
    ),
    session.desired.target.name,
    (undeclared) => `declare ${undeclared} for ${session.desired.target.name}, or promote a source version that does not use it`,
  );
  plan.warnings.push(...promoted.warnings);
  if (ignored.length > 0) plan.ignored = ignored;
  if (strict.derived) plan.derivedToolPolicies = strict.derived;
  // Reconciling token files may have renamed the live key (a duplicate given its declared name).
  const credentialKey = ownKey && actual.resources.find((resource) => resource.id === ownKey.id);
  const credentialAddress = credentialKey && addressOf(credentialKey.kind, credentialKey.name);
  if (credentialAddress) plan.warnings.push(...credentialKeyProblems(plan, credentialAddress).map((problem) => `${problem}: apply with this key would refuse`));
  return {
    ...session,
    desired,
    actual,
    plan,
    tokenFiles,
    planned,
    ...(Array.isArray(credentialScopes) ? { credentialScopes: credentialScopes.map(String) } : {}),
    ...(credentialAddress ? { credentialKey: credentialAddress } : {}),
  };
}

/** The live state without the local control plane's own key, unless the configuration declares it. */
function withoutLocalPlaneKey(actual: ActualState, desired: DesiredState, planeKey: ActualResource | undefined): ActualState {
  if (!planeKey || desired.resources.some((resource) => resource.kind === 'apiKey' && resource.name === planeKey.name)) return actual;
  return { ...actual, resources: actual.resources.filter((resource) => resource !== planeKey) };
}

/** The record of the API key whose token this run uses, found by its prefix (like whoami). */
function ownKeyOf(actual: ActualState, token: string | undefined): ActualResource | undefined {
  return token ? actual.resources.find((resource) => isKeyOfToken(resource, token)) : undefined;
}

function isKeyOfToken(resource: ActualResource, token: string): boolean {
  const prefix = resource.remote.prefix;
  return resource.kind === 'apiKey' && typeof prefix === 'string' && prefix.length > 0 && token.startsWith(prefix);
}
