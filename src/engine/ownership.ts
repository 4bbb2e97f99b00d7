// Which resources a plan may touch: the project's `owns:` patterns, `--exclude`, and the
// `protect:`/`forget:` lists of agentform.yaml. Pure: the states go in, the states the plan is
// computed from come out, with what was set aside and why. The API has no labels, so every rule
// is a glob over resource addresses (`agent/team-a-*`).
import type { SourceLocation } from '../errors.js';
import type {
  ActualResource,
  ActualState,
  DesiredResource,
  DesiredState,
  Plan,
  PlanScope,
  ResourceAddress,
  ResourceKind,
  SetAsideResource,
} from '../model/resources.js';
import { addressOf } from '../model/resources.js';
import { addressGlob } from './address-glob.js';
import { PlanError } from './errors.js';

/** One entry of `protect:` or `forget:`: an address glob and, optionally, why. */
export interface AddressRule {
  pattern: string;
  reason?: string;
  /** Where the entry is written, for messages. */
  location?: SourceLocation;
}

export interface OwnershipRules {
  /** Address globs of what the project owns; undefined: the whole environment. */
  owns?: string[];
  protect: AddressRule[];
  forget: AddressRule[];
}

export interface ScopeInputs extends OwnershipRules {
  /** --exclude globs. */
  excludes: string[];
}

export const NO_OWNERSHIP_RULES: OwnershipRules = { protect: [], forget: [] };

/** The containers the plan runs in: always the project's, whatever `owns:` says. */
const CONTAINER_KINDS: ReadonlySet<ResourceKind> = new Set(['organization', 'environment']);

/**
 * The addresses a rule may name a resource by: its own, and for a grant its connection's too. A
 * grant belongs to its connection (its name starts with the connection's), so whatever owns,
 * forgets, excludes or protects `connection/gh` does the same to the grants of gh.
 */
function ruleAddresses(address: string): string[] {
  if (!address.startsWith('grant/')) return [address];
  const name = address.slice('grant/'.length);
  return [address, addressOf('connection', name.split(':')[0] ?? name)];
}

/** The first pattern that matches `address` (a grant: or its connection's), or undefined. */
export function firstMatch(address: string, patterns: readonly string[]): string | undefined {
  const names = ruleAddresses(address);
  return patterns.find((pattern) => names.some((name) => addressGlob(pattern).test(name)));
}

/** The first rule whose pattern matches `address` (a grant: or its connection's), or undefined. */
export function matchingRule(address: string, rules: readonly AddressRule[]): AddressRule | undefined {
  const names = ruleAddresses(address);
  return rules.find((rule) => names.some((name) => addressGlob(rule.pattern).test(name)));
}

/** Whether the project owns `address` (the organization and environment: always). */
export function isOwned(address: ResourceAddress, kind: ResourceKind, owns: readonly string[] | undefined): boolean {
  return owns === undefined || CONTAINER_KINDS.has(kind) || firstMatch(address, owns) !== undefined;
}

/** `forget: agent/legacy-* in agentform.yaml (handed over to team B)`. */
export function ruleReason(list: 'protect' | 'forget', rule: AddressRule): string {
  const where = rule.location ? `${rule.location.file}:${rule.location.line}:${rule.location.col}` : 'agentform.yaml';
  return `${list}: ${rule.pattern} (${where})${rule.reason ? `: ${rule.reason}` : ''}`;
}

export interface ScopedStates {
  desired: DesiredState;
  actual: ActualState;
  /** undefined when no rule applies: the plan then carries no scope. */
  scope: PlanScope | undefined;
}

/**
 * The states a plan is computed from: live resources outside `owns:` dropped (never listed), and
 * forgotten or excluded resources dropped from both sides and listed with their reason. A declared
 * resource that depends on an excluded one that does not exist yet is excluded too: creating it
 * would fail on the missing dependency, so nothing is written for it.
 */
export function scopeStates(desired: DesiredState, actual: ActualState, inputs: ScopeInputs): ScopedStates {
  const { owns, forget, excludes } = inputs;
  if (owns === undefined && forget.length === 0 && excludes.length === 0) return { desired, actual, scope: undefined };
  const setAside = new Map<ResourceAddress, SetAsideResource>();
  const liveAddresses = new Set<ResourceAddress>();
  let notOwned = 0;
  const keptActual: ActualResource[] = [];
  for (const resource of actual.resources) {
    const address = addressOf(resource.kind, resource.name);
    if (!isOwned(address, resource.kind, owns)) {
      notOwned++;
      continue;
    }
    liveAddresses.add(address);
    const aside = setAsideFor(address, forget, excludes);
    if (aside) setAside.set(address, aside);
    else keptActual.push(resource);
  }
  for (const resource of desired.resources) {
    const address = addressOf(resource.kind, resource.name);
    const forgotten = matchingRule(address, forget);
    if (forgotten) {
      throw new PlanError(
        `${address} is declared, and ${ruleReason('forget', forgotten)} says agentform no longer manages it`,
        `remove its declaration to stop managing it, or remove it from forget: to manage it again`,
        resource.location,
      );
    }
    const aside = setAsideFor(address, forget, excludes);
    if (aside) setAside.set(address, aside);
  }
  excludeDependents(desired.resources, setAside, liveAddresses);
  const keptDesired = desired.resources.filter((resource) => !setAside.has(addressOf(resource.kind, resource.name)));
  const scope: PlanScope = {
    excludes: [...excludes],
    ...(owns !== undefined ? { owns: [...owns] } : {}),
    notOwned,
    setAside: [...setAside.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)),
  };
  return { desired: { ...desired, resources: keptDesired }, actual: { ...actual, resources: keptActual }, scope };
}

function setAsideFor(address: ResourceAddress, forget: readonly AddressRule[], excludes: readonly string[]): SetAsideResource | undefined {
  const forgotten = matchingRule(address, forget);
  if (forgotten) return { address, as: 'forgotten', reason: ruleReason('forget', forgotten) };
  const excluded = firstMatch(address, excludes);
  return excluded === undefined ? undefined : { address, as: 'excluded', reason: `--exclude ${excluded}` };
}

/** Declared resources whose dependency is excluded and not live, to a fixed point (chains of them). */
function excludeDependents(resources: readonly DesiredResource[], setAside: Map<ResourceAddress, SetAsideResource>, live: ReadonlySet<ResourceAddress>): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const resource of resources) {
      const address = addressOf(resource.kind, resource.name);
      if (setAside.has(address)) continue;
      const missing = resource.references
        .map((reference) => addressOf(reference.kind, reference.name))
        .find((dependency) => setAside.get(dependency)?.as === 'excluded' && !live.has(dependency));
      if (missing === undefined) continue;
      setAside.set(address, { address, as: 'excluded', reason: `depends on ${missing}, which is excluded and does not exist yet` });
      changed = true;
    }
  }
}

/**
 * A `protect:` or `forget:` entry, or an --exclude, that matches nothing declared or live (and
 * owned): a typo in a protect: glob protects nothing, one in an --exclude excludes nothing, and a
 * forget: entry outlives the resource it kept.
 */
export function unmatchedRuleWarnings(rules: OwnershipRules, desired: DesiredState, actual: ActualState, excludes: readonly string[] = []): string[] {
  const addresses = new Set<ResourceAddress>();
  for (const resource of desired.resources) addresses.add(addressOf(resource.kind, resource.name));
  for (const resource of actual.resources) {
    const address = addressOf(resource.kind, resource.name);
    if (isOwned(address, resource.kind, rules.owns)) addresses.add(address);
  }
  const matchesNothing = (rule: AddressRule) => ![...addresses].some((address) => addressGlob(rule.pattern).test(address));
  return [
    ...rules.protect.filter(matchesNothing).map((rule) => `${ruleReason('protect', rule)} matches no resource here: check the glob`),
    ...rules.forget.filter(matchesNothing).map((rule) => `${ruleReason('forget', rule)} matches no resource here: remove it once no longer needed`),
    ...excludes.filter((pattern) => matchesNothing({ pattern })).map((pattern) => `--exclude ${pattern} matches no resource here: nothing is excluded by it`),
  ];
}

/**
 * Refuses a --target the scope leaves out: planning it would say "no such resource" when the
 * resource exists, or silently do nothing.
 */
export function refuseTargetsOutOfScope(targets: readonly ResourceAddress[], scope: PlanScope | undefined, live: ActualState): void {
  if (!scope) return;
  for (const target of targets) {
    const aside = scope.setAside.find((item) => item.address === target);
    if (aside) throw new PlanError(`--target ${target} is ${aside.as} (${aside.reason}): the plan leaves it alone`);
    const outside = live.resources.find((resource) => addressOf(resource.kind, resource.name) === target && !isOwned(target, resource.kind, scope.owns));
    if (outside) throw new PlanError(`--target ${target} is outside what this project owns (owns: ${(scope.owns ?? []).join(', ')})`);
  }
}

/**
 * The declared resources a `protect:` entry matches, marked `protect: true`: the plan then treats
 * them exactly as if their own file said so (a token file gone is a warning, not a replace).
 */
export function markProtected(desired: DesiredState, protect: readonly AddressRule[]): DesiredState {
  if (protect.length === 0) return desired;
  const resources = desired.resources.map((resource) =>
    resource.protect || !matchingRule(addressOf(resource.kind, resource.name), protect) ? resource : { ...resource, protect: true },
  );
  return { ...desired, resources };
}

/**
 * What a plan would destroy of the `protect:` list, each named with the entry that protects it.
 * Only deletes: a declared resource it matches is marked (markProtected), so the plan itself
 * refuses to replace it.
 */
export function protectedLosses(plan: Plan, protect: readonly AddressRule[]): string[] {
  if (protect.length === 0) return [];
  const losses: string[] = [];
  for (const change of plan.changes) {
    if (change.action !== 'delete') continue;
    const rule = matchingRule(change.address, protect);
    if (rule) losses.push(`${change.address} would be destroyed (it is not in the configuration); it is protected by ${ruleReason('protect', rule)}`);
  }
  return losses;
}

/** Refuses a plan with protectedLosses: every one is named, and nothing is written. */
export function refuseProtectedChanges(plan: Plan, protect: readonly AddressRule[]): void {
  const refusals = protectedLosses(plan, protect);
  if (refusals.length === 0) return;
  throw new PlanError(
    `refusing to plan: ${refusals.length} protected resource${refusals.length === 1 ? '' : 's'} would be lost:\n  ${refusals.join('\n  ')}`,
    'restore its declaration, list it under forget: to stop managing it and keep it, or remove it from protect:',
  );
}

/**
 * promote and rollback write agents directly: one the project does not own, or has forgotten, is
 * refused before anything is read or written, as a plan would leave it alone.
 */
export function refuseAgentWritesOutOfScope(slugs: readonly string[], rules: OwnershipRules, command: 'promote' | 'roll back'): void {
  for (const slug of slugs) {
    const address = addressOf('agent', slug);
    if (!isOwned(address, 'agent', rules.owns)) {
      throw new PlanError(`refusing to ${command} ${address}: it is outside what this project owns (owns: ${(rules.owns ?? []).join(', ')})`);
    }
    const forgotten = matchingRule(address, rules.forget);
    if (forgotten) throw new PlanError(`refusing to ${command} ${address}: ${ruleReason('forget', forgotten)} says agentform no longer manages it`);
  }
}
