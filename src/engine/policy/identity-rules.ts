// Rules about who acts through a grant: a grant for a scope an agent may not admit. (An agent that
// admits anonymous callers beside grants is judged on the agent: agent-rules.ts.) They read the identity reach of engine/identity-reach.ts, so a finding and
// the plan's identity changes never disagree.
import { computeIdentityReach, grantsOf } from '../identity-reach.js';
import type { IdentityReach } from '../../model/safety.js';
import { resourceRule, type RuleContext, WARNING_EVERYWHERE } from './types.js';

/** Every agent's reach, once per evaluation (the rules look it up per grant). */
const reachByContext = new WeakMap<RuleContext, Map<string, IdentityReach[]>>();

export function identityReach(context: RuleContext): Map<string, IdentityReach[]> {
  let reach = reachByContext.get(context);
  if (!reach) {
    reach = computeIdentityReach(context.byKind('agent'), context.capabilities, grantsOf(context.byKind('grant')));
    reachByContext.set(context, reach);
  }
  return reach;
}

/** `support`, or `front (through support)` for a subagent chain. */
function agentLabel(agent: string, via: readonly string[]): string {
  return via.length === 0 ? agent : `${agent} (through ${via.join(' › ')})`;
}

/** The agents (and chains) whose reach of `connection` has an entry `matches` accepts. */
function reachers(context: RuleContext, connection: string, matches: (reach: IdentityReach) => boolean): string[] {
  const found: string[] = [];
  for (const [agent, reach] of identityReach(context))
    for (const entry of reach) if (entry.connection === connection && matches(entry)) found.push(agentLabel(agent, entry.via));
  return [...new Set(found)].sort();
}

export const grantScopeNotAllowed = resourceRule('grant', {
  id: 'grant-scope-not-allowed',
  rationale:
    "A grant for an identity scope wider than an agent's identity.scopesAllowed reaches that agent's tools unless the server refuses it, which the API does not show.",
  severity: WARNING_EVERYWHERE,
  check: (grant, context) => {
    const connection = grant.spec.connection;
    if (typeof connection !== 'string') return [];
    const agents = reachers(context, connection, (entry) => entry.grant === grant.name && entry.note !== undefined);
    if (agents.length === 0) return [];
    const scope = grantsOf([grant])[0]?.scope ?? '?';
    const one = agents.length === 1;
    return [
      {
        path: ['identity', 'scope'],
        message: `scope ${scope} is not in identity.scopesAllowed of agent${one ? '' : 's'} ${agents.join(', ')}, which reach${one ? 'es' : ''} connection ${connection}: whether the server refuses this grant there is not shown`,
      },
    ];
  },
});
