// Capability tests: whether an agent can call a tool, from the configuration and the lock alone,
// and the chain of definitions that makes it so (agent, subagents, tools entry, connection, lock
// entry, policy). Pure: the environment's agents, the lock's surfaces and a locator come in as
// values. Decisions follow capabilities.ts (decisionFor), so a test and the plan's capability
// review never disagree.
import type { SourceLocation } from '../errors.js';
import type { CapabilityAssertion, CapabilityTestResult, DefinitionStep } from '../model/capability-test.js';
import type { JsonObject, JsonValue } from '../model/resources.js';
import type { ToolDecision } from '../model/safety.js';
import { type AgentSpec, decisionFor, effectOf, type LockedSurfaces, subagentNames } from './capabilities.js';
import { ANONYMOUS, type GrantSubject, identityRequired, scopesAllowed } from './identity-reach.js';

/** A definition to locate: part of a resource's spec (as written; a grant as a whole), or a tool of the lock. */
export type DefinitionRef =
  | { kind: 'agent' | 'connection' | 'grant'; name: string; path: Array<string | number> }
  | { kind: 'lock'; environment: string; connection: string; toolIndex: number };

export type Locate = (ref: DefinitionRef) => SourceLocation | undefined;

export interface CapabilityTestInputs {
  environment: string;
  agents: readonly AgentSpec[];
  /** The connections the environment declares. */
  connections: ReadonlySet<string>;
  surfaces: LockedSurfaces | undefined;
  /** The environment's grants, for assertions `as` an identity (identity-reach.ts reads them the same way). */
  grants?: readonly GrantSubject[];
  /** Every agent name the project declares, in any environment: a glob matching none is a mistake. */
  declaredAgents: readonly string[];
  locate: Locate;
}

/** How one way to the tool ends: a decision, or `unknown` when the lock does not say what the tool is. */
type RouteDecision = ToolDecision | 'unknown';

interface Route {
  decision: RouteDecision;
  steps: DefinitionStep[];
  /** Why the decision is unknown, when it is. */
  unknownBecause?: string;
}

/** Whether the agent reaches the tool as the assertion's `can` asks, cannot, or it cannot be told. */
type Verdict = 'yes' | 'no' | 'unknown';

interface AgentOutcome {
  agent: string;
  verdict: Verdict;
  /** For yes / unknown: the route; for no: every route that was refused, and what is missing. */
  chain: DefinitionStep[];
  reason: string;
}

/** An agent glob: `*` any characters, `?` one (agent names hold no `/`, so no `**`). */
export function agentPattern(glob: string): RegExp {
  const escaped = [...glob].map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${escaped.join('')}$`);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `crm.delete_customer` → `['crm', 'delete_customer']`: the connection (or builtin, sandbox), then the tool. */
export function splitTool(tool: string): [string, string] {
  const dot = tool.indexOf('.');
  return [tool.slice(0, dot), tool.slice(dot + 1)];
}

export function describeDecision(decision: RouteDecision): string {
  return decision === 'allowed' ? 'without a decision' : decision === 'hook' ? 'after a decision' : decision === 'denied' ? 'denied' : 'unknown';
}

function wanted(withDecision: boolean | undefined): string {
  return withDecision === true ? ' with a decision' : withDecision === false ? ' without a decision' : '';
}

function asWho(as: string | undefined): string {
  return as === undefined ? '' : ` as ${as}`;
}

export function defaultAssertionName(assertion: Pick<CapabilityAssertion, 'agent' | 'expect' | 'tool' | 'withDecision' | 'as'>): string {
  return `${assertion.agent} ${assertion.expect} call ${assertion.tool}${wanted(assertion.withDecision)}${asWho(assertion.as)}`;
}

/**
 * Whether `agent` admits the assertion's caller, and the step that says so: an anonymous caller is
 * refused by identity.required: true; an identity whose scope identity.scopesAllowed does not list
 * is assumed admitted (the server's handling is not shown), as the plan's identity reach assumes.
 */
function admission(agent: AgentSpec, as: string | undefined, locate: Locate): { admitted: boolean; step?: DefinitionStep } {
  if (as === undefined) return { admitted: true };
  const at = (path: string[]) => withLocation(locate({ kind: 'agent', name: agent.name, path }));
  if (as === ANONYMOUS) {
    if (identityRequired(agent.spec))
      return { admitted: false, step: { what: `${agent.name}: identity.required: true: an anonymous caller is refused`, ...at(['identity', 'required']) } };
    return { admitted: true, step: { what: `${agent.name}: identity.required is not true: an anonymous caller is admitted`, ...at([]) } };
  }
  const scope = as.slice(0, as.indexOf(':'));
  const allowed = scopesAllowed(agent.spec);
  if (allowed && !allowed.includes(scope))
    return {
      admitted: true,
      step: {
        what: `${agent.name}: identity.scopesAllowed [${allowed.join(', ')}] does not list ${scope}: assumed admitted (not shown)`,
        ...at(['identity', 'scopesAllowed']),
      },
    };
  return { admitted: true };
}

/**
 * The credential a connection's tools are called with for the caller: its grant, or the connection's
 * own for anonymous. An identity with no grant may fall back to the connection's own credential
 * when no agent on the chain requires an identity (not shown): `worstCase` assumes it does.
 */
function credentialStep(
  source: string,
  as: string | undefined,
  inputs: CapabilityTestInputs,
  worstCase: boolean,
): { step?: DefinitionStep; missing?: DefinitionStep } {
  if (as === undefined) return {};
  if (as === ANONYMOUS) return { step: { what: `connection ${source}: its own credential (an anonymous caller has no grant)` } };
  const grant = inputs.grants?.find((candidate) => candidate.connection === source && `${candidate.scope}:${candidate.id}` === as);
  const connectionAt = withLocation(inputs.locate({ kind: 'connection', name: source, path: [] }));
  if (!grant && worstCase)
    return {
      step: {
        what: `connection ${source} has no grant for ${as} in ${inputs.environment}: its own credential is assumed (no agent on the chain requires an identity; not shown)`,
        ...connectionAt,
      },
    };
  if (!grant) return { missing: { what: `connection ${source} has no grant for ${as} in ${inputs.environment}`, ...connectionAt } };
  return { step: { what: `grant ${grant.name}`, ...withLocation(inputs.locate({ kind: 'grant', name: grant.name, path: [] })) } };
}

/** Where `policies.toolCalls` decides a call of `toolName`, in the order decisionFor reads it. */
function policyStep(agent: AgentSpec, toolName: string, locate: Locate): DefinitionStep {
  const policies = isObject(agent.spec.policies) ? agent.spec.policies : {};
  const toolCalls = isObject(policies.toolCalls) ? policies.toolCalls : {};
  const byTool = isObject(toolCalls.byTool) ? toolCalls.byTool : {};
  const at = (...path: string[]) => locate({ kind: 'agent', name: agent.name, path: ['policies', 'toolCalls', ...path] });
  const withLocation = (what: string, location: SourceLocation | undefined): DefinitionStep => ({ what, ...(location ? { location } : {}) });
  if (typeof byTool[toolName] === 'string')
    return withLocation(`${agent.name}: policies.toolCalls.byTool.${toolName}: ${byTool[toolName]}`, at('byTool', toolName));
  const hasHook = isObject(toolCalls.hook) && typeof toolCalls.hook.connection === 'string';
  if (typeof toolCalls.default === 'string') {
    const hook = toolCalls.default === 'allow' && hasHook ? ' (with a hook, which decides)' : '';
    return withLocation(`${agent.name}: policies.toolCalls.default: ${toolCalls.default}${hook}`, at('default'));
  }
  if (hasHook) return withLocation(`${agent.name}: policies.toolCalls.hook decides (no byTool entry, no default)`, at('hook'));
  return withLocation(
    `${agent.name}: no policies.toolCalls entry for ${toolName}: the server's default is assumed to run it without a decision`,
    locate({ kind: 'agent', name: agent.name, path: [] }),
  );
}

function toolsEntryIndex(spec: JsonObject, type: string, name: string): number {
  const tools = Array.isArray(spec.tools) ? spec.tools : [];
  return tools.findIndex((item) => isObject(item) && item.type === type && item.name === name);
}

/** The ways `agent` itself (not its subagents) reaches the tool, and what is missing when it does not. */
function ownRoutes(
  agent: AgentSpec,
  tool: string,
  as: string | undefined,
  inputs: CapabilityTestInputs,
  worstCase: boolean,
): { routes: Route[]; missing?: DefinitionStep; namesConnection?: boolean } {
  const { locate, environment } = inputs;
  const [source, toolName] = splitTool(tool);
  const at = (path: Array<string | number>) => locate({ kind: 'agent', name: agent.name, path });
  const step = (what: string, location: SourceLocation | undefined): DefinitionStep => ({ what, ...(location ? { location } : {}) });
  if (source === 'sandbox') {
    const sandbox = isObject(agent.spec.sandbox) ? agent.spec.sandbox : undefined;
    if (!sandbox) return { routes: [], missing: step(`${agent.name} has no sandbox`, at([])) };
    const tools = isObject(sandbox.tools) ? sandbox.tools : {};
    const listed = (key: string) => (Array.isArray(tools[key]) ? (tools[key] as JsonValue[]) : []).indexOf(toolName);
    if (listed('deny') >= 0)
      return {
        routes: [
          { decision: 'denied', steps: [step(`${agent.name}: sandbox.tools.deny lists ${toolName}`, at(['sandbox', 'tools', 'deny', listed('deny')]))] },
        ],
      };
    if (listed('allow') >= 0)
      return {
        routes: [
          {
            decision: decisionFor(agent.spec, toolName),
            steps: [
              step(`${agent.name}: sandbox.tools.allow lists ${toolName}`, at(['sandbox', 'tools', 'allow', listed('allow')])),
              policyStep(agent, toolName, locate),
            ],
          },
        ],
      };
    return {
      routes: [
        {
          decision: 'unknown',
          steps: [step(`${agent.name}: sandbox`, at(['sandbox']))],
          unknownBecause: `the sandbox preset's tools are not published: whether it holds ${toolName} is unknown (list it in sandbox.tools.allow or deny)`,
        },
      ],
    };
  }
  const isBuiltin = source === 'builtin';
  const index = toolsEntryIndex(agent.spec, isBuiltin ? 'builtin' : 'connection', isBuiltin ? toolName : source);
  if (index < 0) {
    const what = isBuiltin ? `${agent.name}: tools does not list builtin ${toolName}` : `${agent.name}: tools does not name connection ${source}`;
    return { routes: [], missing: step(what, at(Array.isArray(agent.spec.tools) ? ['tools'] : [])) };
  }
  const entry = step(`${agent.name}: tools[${index}]: ${isBuiltin ? 'builtin' : 'connection'} ${isBuiltin ? toolName : source}`, at(['tools', index]));
  if (isBuiltin) return { routes: [{ decision: decisionFor(agent.spec, toolName), steps: [entry, policyStep(agent, toolName, locate)] }] };
  const connection = inputs.connections.has(source)
    ? step(`connection ${source}`, locate({ kind: 'connection', name: source, path: [] }))
    : step(`connection ${source} (not declared in ${environment})`, undefined);
  const credential = credentialStep(source, as, inputs, worstCase);
  if (credential.missing) return { routes: [], namesConnection: true, missing: credential.missing };
  const through = credential.step ? [credential.step] : [];
  // Own keys only: a connection may well be called `constructor`.
  const surface = inputs.surfaces && Object.hasOwn(inputs.surfaces, source) ? inputs.surfaces[source] : undefined;
  if (!surface)
    return {
      routes: [
        {
          decision: 'unknown',
          steps: [entry, connection, ...through],
          unknownBecause: `agentform.lock.yaml has no entry for connection ${source} in ${environment}: its tools are unknown (run agentform lock -e ${environment})`,
        },
      ],
    };
  const toolIndex = surface.tools.findIndex((candidate) => candidate.name === toolName);
  if (toolIndex < 0)
    return {
      routes: [],
      namesConnection: true,
      missing: step(
        `agentform.lock.yaml: connection ${source} in ${environment} has no tool ${toolName}`,
        locate({ kind: 'lock', environment, connection: source, toolIndex: -1 }),
      ),
    };
  const locked = surface.tools[toolIndex];
  const lockStep = step(
    `agentform.lock.yaml: connection ${source} in ${environment} has ${toolName} (${effectOf(locked?.annotations)})`,
    locate({ kind: 'lock', environment, connection: source, toolIndex }),
  );
  return { routes: [{ decision: decisionFor(agent.spec, toolName), steps: [entry, connection, ...through, lockStep, policyStep(agent, toolName, locate)] }] };
}

function satisfies(decision: RouteDecision, withDecision: boolean | undefined): Verdict {
  if (decision === 'unknown') return 'unknown';
  if (decision === 'denied') return 'no';
  if (withDecision === undefined) return 'yes';
  return (decision === 'hook') === withDecision ? 'yes' : 'no';
}

/** Whether one agent can call the tool as asked, through itself or a subagent (each reached once, by its shortest chain). */
function outcomeFor(root: AgentSpec, assertion: CapabilityAssertion, inputs: CapabilityTestInputs): AgentOutcome {
  const byName = new Map(inputs.agents.map((agent) => [agent.name, agent]));
  const rootStep: DefinitionStep = { what: `agent ${root.name}`, ...withLocation(inputs.locate({ kind: 'agent', name: root.name, path: [] })) };
  // depth: how many subagents down the chain is (its steps may also hold identity admissions).
  // required: whether an agent on the chain so far has identity.required: true.
  type Visit = { agent: AgentSpec; chain: DefinitionStep[]; depth: number; required: boolean };
  const queue: Visit[] = [{ agent: root, chain: [rootStep], depth: 0, required: false }];
  // Each agent once per kind of chain (open, or through an agent requiring an identity), so the
  // worst case for an identity with no grant does not hang on which chain comes first.
  const seen = new Set<string>([`${root.name}|false`, `${root.name}|true`]);
  const refused: DefinitionStep[] = [];
  let unknown: { chain: DefinitionStep[]; because: string } | undefined;
  while (queue.length > 0) {
    const next = queue.shift() as Visit;
    const { agent, depth } = next;
    const required = next.required || identityRequired(agent.spec);
    let { chain } = next;
    // A caller the agent refuses reaches nothing through it, its subagents included.
    const admitted = admission(agent, assertion.as, inputs.locate);
    if (!admitted.admitted) {
      refused.push(...(agent === root ? [] : chain.slice(1)), admitted.step as DefinitionStep);
      continue;
    }
    if (admitted.step) chain = [...chain, admitted.step];
    // A `cannot` assumes the worst: an identity with no grant acts with the connection's credential.
    const worstCase = assertion.expect === 'cannot' && !required;
    const { routes, missing, namesConnection } = ownRoutes(agent, assertion.tool, assertion.as, inputs, worstCase);
    // A subagent that does not name the connection at all is no news; one whose lock entry lacks the tool is.
    if (missing && agent === root) refused.push(missing);
    else if (missing && namesConnection) refused.push(...chain.slice(1), missing);
    for (const route of routes) {
      const verdict = satisfies(route.decision, assertion.withDecision);
      const steps = [...chain, ...route.steps];
      if (verdict === 'yes')
        return {
          agent: root.name,
          verdict,
          chain: steps,
          reason: `${root.name} can call ${assertion.tool} ${describeDecision(route.decision)}${throughOf(depth)}${asWho(assertion.as)}`,
        };
      if (verdict === 'unknown') unknown ??= { chain: steps, because: route.unknownBecause ?? 'unknown' };
      else refused.push(...(agent === root ? route.steps : steps.slice(1)));
    }
    const names = subagentNames(agent.spec);
    for (const [index, name] of names.entries()) {
      if (seen.has(`${name}|${required}`)) continue;
      seen.add(`${name}|${required}`);
      const child = byName.get(name);
      if (!child) continue;
      const location = inputs.locate({ kind: 'agent', name: agent.name, path: ['subagents', index] });
      queue.push({ agent: child, chain: [...chain, { what: `${agent.name}: subagent ${name}`, ...withLocation(location) }], depth: depth + 1, required });
    }
  }
  if (unknown)
    return {
      agent: root.name,
      verdict: 'unknown',
      chain: unknown.chain,
      reason: `cannot tell whether ${root.name} can call ${assertion.tool}: ${unknown.because}`,
    };
  return {
    agent: root.name,
    verdict: 'no',
    chain: [rootStep, ...refused],
    reason: `${root.name} cannot call ${assertion.tool}${wanted(assertion.withDecision)}${asWho(assertion.as)}`,
  };
}

function withLocation(location: SourceLocation | undefined): { location?: SourceLocation } {
  return location ? { location } : {};
}

function throughOf(subagents: number): string {
  return subagents > 0 ? ` (through ${subagents === 1 ? 'a subagent' : `${subagents} subagents`})` : '';
}

/** Whether the assertion is checked in the environment: the ones it names, or every one when it names none. */
export function appliesIn(assertion: Pick<CapabilityAssertion, 'environments'>, environment: string): boolean {
  return assertion.environments === undefined || assertion.environments.includes(environment);
}

/**
 * The assertion's result in one environment, or undefined when it is not checked there: no agent
 * of the environment matches, but one of another environment does. Every agent the glob matches
 * must satisfy it (`can`: each can; `cannot`: none can).
 */
export function evaluateAssertion(assertion: CapabilityAssertion, inputs: CapabilityTestInputs): CapabilityTestResult | undefined {
  const pattern = agentPattern(assertion.agent);
  const agents = inputs.agents.filter((agent) => pattern.test(agent.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const base = { assertion, environment: inputs.environment, agents: agents.map((agent) => agent.name) };
  if (agents.length === 0) {
    if (inputs.declaredAgents.some((name) => pattern.test(name))) return undefined;
    return { ...base, status: 'error', message: `agent ${assertion.agent} matches no agent the project declares`, chain: [] };
  }
  const outcomes = agents.map((agent) => outcomeFor(agent, assertion, inputs));
  const failing = outcomes.find((outcome) => outcome.verdict === (assertion.expect === 'can' ? 'no' : 'yes'));
  if (failing) return { ...base, status: 'fail', message: failing.reason, chain: failing.chain };
  const undecided = outcomes.find((outcome) => outcome.verdict === 'unknown');
  if (undecided) return { ...base, status: 'error', message: undecided.reason, chain: undecided.chain };
  const first = outcomes[0] as AgentOutcome;
  const others = outcomes.length > 1 ? ` (and ${outcomes.length - 1} more)` : '';
  return { ...base, status: 'pass', message: `${first.reason}${others}`, chain: first.chain };
}
