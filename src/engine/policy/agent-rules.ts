// Rules about an agent's wider reach: identities behind grants, subagent trees, fallback models.
import { addressOf, type JsonObject } from '../../model/resources.js';
import { subagentDepth, subagentNames } from '../capabilities.js';
import type { BuiltinRule, RawFinding } from './types.js';
import { arrayAt, isObject, valueAt } from './spec-access.js';

export const identityNotRequiredWithGrants: BuiltinRule = {
  id: 'identity-not-required-with-grants',
  rationale: 'With per-identity grants on its connections, an agent that does not require an identity may act with no one to answer for it.',
  severity: { other: 'warning', production: 'error' },
  check: (context) => {
    const withGrants = new Set(context.byKind('grant').flatMap((grant) => (typeof grant.spec.connection === 'string' ? [grant.spec.connection] : [])));
    return context.byKind('agent').flatMap((agent): RawFinding[] => {
      if (valueAt(agent.spec, ['identity', 'required']) === true) return [];
      const connections = arrayAt(agent.spec, ['tools']).flatMap((tool) => (isObject(tool) && tool.type === 'connection' && typeof tool.name === 'string' && withGrants.has(tool.name) ? [tool.name] : []));
      if (connections.length === 0) return [];
      return [{ address: addressOf('agent', agent.name), path: ['identity'], message: `identity.required is not true, but connection${connections.length === 1 ? '' : 's'} ${connections.join(', ')} hold${connections.length === 1 ? 's' : ''} per-identity grants` }];
    });
  },
};

export const subagentDepthRule: BuiltinRule = {
  id: 'subagent-depth',
  rationale: 'Deep or wide subagent trees multiply cost and make it hard to see who did what.',
  severity: { other: 'warning', production: 'error' },
  check: (context) => {
    const agents = new Map(context.byKind('agent').map((agent) => [agent.name, agent.spec]));
    const { subagentDepth: maxDepth, subagentFanOut: maxFanOut } = context.thresholds;
    return context.byKind('agent').flatMap((agent): RawFinding[] => {
      const findings: RawFinding[] = [];
      const address = addressOf('agent', agent.name);
      const { depth, cycle } = subagentDepth(agent.name, agents);
      const declaredDepth = valueAt(agent.spec, ['subagentPolicy', 'maxDepth']);
      const fanOut = subagentNames(agent.spec as JsonObject).length;
      const selfDelegation = valueAt(agent.spec, ['subagentPolicy', 'selfDelegation']) === true;
      // The declared bounds matter only to an agent that delegates at all.
      if (fanOut === 0 && !selfDelegation) return [];
      if (depth > maxDepth) findings.push({ address, path: ['subagents'], message: `its subagent chain is ${depth} deep (at most ${maxDepth})` });
      if (typeof declaredDepth === 'number' && declaredDepth > maxDepth) findings.push({ address, path: ['subagentPolicy', 'maxDepth'], message: `subagentPolicy.maxDepth is ${declaredDepth} (at most ${maxDepth})` });
      if ((cycle || selfDelegation) && typeof declaredDepth !== 'number') {
        findings.push({ address, path: ['subagentPolicy'], message: `${cycle ? 'its subagents delegate back in a cycle' : 'subagentPolicy.selfDelegation is true'} and subagentPolicy.maxDepth is not set: the tree is unbounded` });
      }
      if (fanOut > maxFanOut) findings.push({ address, path: ['subagents'], message: `it has ${fanOut} subagents (at most ${maxFanOut})` });
      const concurrent = valueAt(agent.spec, ['subagentPolicy', 'maxConcurrent']);
      if (typeof concurrent === 'number' && concurrent > maxFanOut) findings.push({ address, path: ['subagentPolicy', 'maxConcurrent'], message: `subagentPolicy.maxConcurrent is ${concurrent} (at most ${maxFanOut})` });
      return findings;
    });
  },
};

export const fallbackProviderWithoutSecret: BuiltinRule = {
  id: 'fallback-provider-without-secret',
  rationale: 'A fallback to a provider with no secret fails exactly when the primary model is down.',
  severity: { other: 'warning', production: 'error' },
  check: (context) => {
    const providers = new Map(context.byKind('provider').map((provider) => [provider.name, provider]));
    return context.byKind('agent').flatMap((agent): RawFinding[] =>
      arrayAt(agent.spec, ['model', 'fallback', 'models']).flatMap((model, index): RawFinding[] => {
        if (!isObject(model) || typeof model.provider !== 'string') return [];
        const provider = providers.get(model.provider);
        if (provider && provider.writeOnly.secret !== undefined) return [];
        const why = provider ? 'declares no secret' : 'is not declared in this environment';
        return [{ address: addressOf('agent', agent.name), path: ['model', 'fallback', 'models', index, 'provider'], message: `fallback model ${model.provider}/${String(model.model)}: provider ${model.provider} ${why}` }];
      }),
    );
  },
};
