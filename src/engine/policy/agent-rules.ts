// Rules about an agent's wider reach: identities behind grants, subagent trees, fallback models.
import type { JsonObject } from '../../model/resources.js';
import { subagentDepth, subagentNames } from '../capabilities.js';
import { ANONYMOUS } from '../identity-reach.js';
import { agentConnections } from '../tool-surface.js';
import { identityReach } from './identity-rules.js';
import { type ResourceFinding, resourceRule, type RuleContext } from './types.js';
import { arrayAt, isObject, valueAt } from './spec-access.js';

// What a rule needs of the whole environment, worked out once per evaluation rather than once per
// agent (with 1,000 agents, once per agent was quadratic).
const grantConnections = new WeakMap<RuleContext, Set<string>>();
const specsByName = new WeakMap<RuleContext, Map<string, JsonObject>>();

/** The connections that hold per-identity grants. */
function connectionsWithGrants(context: RuleContext): Set<string> {
  let names = grantConnections.get(context);
  if (!names) {
    names = new Set(context.byKind('grant').flatMap((grant) => (typeof grant.spec.connection === 'string' ? [grant.spec.connection] : [])));
    grantConnections.set(context, names);
  }
  return names;
}

function agentSpecs(context: RuleContext): Map<string, JsonObject> {
  let specs = specsByName.get(context);
  if (!specs) {
    specs = new Map<string, JsonObject>(context.byKind('agent').map((other) => [other.name, other.spec]));
    specsByName.set(context, specs);
  }
  return specs;
}

export const identityNotRequiredWithGrants = resourceRule('agent', {
  id: 'identity-not-required-with-grants',
  rationale: 'With per-identity grants on its connections, an agent that does not require an identity may act with no one to answer for it.',
  check: (agent, context) => {
    if (valueAt(agent.spec, ['identity', 'required']) === true) return [];
    const withGrants = connectionsWithGrants(context);
    if (withGrants.size === 0) return [];
    // Its own connections, then those a subagent chain reaches with no identity required on it:
    // one finding on the agent, which is where identity.required is set.
    const direct = agentConnections(agent.spec).filter((name) => withGrants.has(name));
    const throughSubagents = (identityReach(context).get(agent.name) ?? [])
      .filter((entry) => entry.identity === ANONYMOUS && entry.via.length > 0 && withGrants.has(entry.connection))
      .map((entry) => `${entry.connection} (through ${entry.via.join(' › ')})`);
    const connections = [...new Set([...direct, ...throughSubagents])];
    if (connections.length === 0) return [];
    const one = connections.length === 1;
    return [
      {
        path: ['identity'],
        message: `identity.required is not true, but connection${one ? '' : 's'} ${connections.join(', ')} hold${one ? 's' : ''} per-identity grants`,
      },
    ];
  },
});

export const subagentDepthRule = resourceRule('agent', {
  id: 'subagent-depth',
  rationale: 'Deep or wide subagent trees multiply cost and make it hard to see who did what.',
  check: (agent, context) => {
    const fanOut = subagentNames(agent.spec).length;
    const selfDelegation = valueAt(agent.spec, ['subagentPolicy', 'selfDelegation']) === true;
    // The declared bounds matter only to an agent that delegates at all.
    if (fanOut === 0 && !selfDelegation) return [];
    const { subagentDepth: maxDepth, subagentFanOut: maxFanOut } = context.thresholds;
    const { depth, cycle } = subagentDepth(agent.name, agentSpecs(context));
    const declaredDepth = valueAt(agent.spec, ['subagentPolicy', 'maxDepth']);
    const concurrent = valueAt(agent.spec, ['subagentPolicy', 'maxConcurrent']);
    const findings: ResourceFinding[] = [];
    if (depth > maxDepth) findings.push({ path: ['subagents'], message: `its subagent chain is ${depth} deep (at most ${maxDepth})` });
    if (typeof declaredDepth === 'number' && declaredDepth > maxDepth)
      findings.push({ path: ['subagentPolicy', 'maxDepth'], message: `subagentPolicy.maxDepth is ${declaredDepth} (at most ${maxDepth})` });
    // Left to the server, selfDelegation may be true: then only maxDepth bounds the tree.
    const selfDelegationUnset =
      valueAt(agent.spec, ['subagentPolicy', 'selfDelegation']) === undefined || valueAt(agent.spec, ['subagentPolicy', 'selfDelegation']) === null;
    if ((cycle || selfDelegation || selfDelegationUnset) && typeof declaredDepth !== 'number') {
      const why = cycle
        ? 'its subagents delegate back in a cycle'
        : selfDelegation
          ? 'subagentPolicy.selfDelegation is true'
          : "subagentPolicy.selfDelegation is not set (the server's default may allow it)";
      findings.push({
        path: ['subagentPolicy'],
        message: `${why} and subagentPolicy.maxDepth is not set: the tree ${selfDelegationUnset && !cycle ? 'may be' : 'is'} unbounded`,
      });
    }
    if (fanOut > maxFanOut) findings.push({ path: ['subagents'], message: `it has ${fanOut} subagents (at most ${maxFanOut})` });
    if (typeof concurrent === 'number' && concurrent > maxFanOut)
      findings.push({ path: ['subagentPolicy', 'maxConcurrent'], message: `subagentPolicy.maxConcurrent is ${concurrent} (at most ${maxFanOut})` });
    return findings;
  },
});

export const fallbackProviderWithoutSecret = resourceRule('agent', {
  id: 'fallback-provider-without-secret',
  rationale: 'A fallback to a provider with no secret fails exactly when the primary model is down.',
  check: (agent, context) =>
    arrayAt(agent.spec, ['model', 'fallback', 'models']).flatMap((model, index): ResourceFinding[] => {
      if (!isObject(model) || typeof model.provider !== 'string') return [];
      const provider = context.byKind('provider').find((candidate) => candidate.name === model.provider);
      if (provider && provider.writeOnly.secret !== undefined) return [];
      const why = provider ? 'declares no secret' : 'is not declared in this environment';
      return [
        {
          path: ['model', 'fallback', 'models', index, 'provider'],
          message: `fallback model ${model.provider}/${String(model.model)}: provider ${model.provider} ${why}`,
        },
      ];
    }),
});
