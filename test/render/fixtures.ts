// One plan with every kind of change, built through the engine so the renderers see real plans.
import { computePlan } from '../../src/engine/plan.js';
import type { Plan } from '../../src/model/resources.js';
import { actual, actualState, agentSpec, desired, desiredState } from '../engine/builders.js';

export function samplePlan(): Plan {
  const want = [
    desired('provider', 'openai', { type: 'openai' }, { writeOnly: { secret: { source: '${env:OPENAI_KEY}', value: 'SENTINEL-SECRET' } } }),
    desired(
      'agent',
      'support',
      { ...agentSpec('gpt-4o', 'You are support.\nBe kind.\nAnswer briefly.\n'), model: { provider: 'openai', model: 'gpt-4o', reasoning: null } },
      {
        references: [{ kind: 'provider', name: 'openai', path: 'model.provider' }],
      },
    ),
    desired('agent', 'triage', agentSpec(), { references: [{ kind: 'agent', name: 'support', path: 'subagents[0].agent' }] }),
    desired('apiKey', 'ci', { scopes: ['read', 'control'] }),
  ];
  const have = [
    actual('agent', 'support', {
      ...agentSpec('gpt-4o-mini', 'You are support.\nBe nice.\nAnswer briefly.\n'),
      model: { provider: 'openai', model: 'gpt-4o-mini', reasoning: 'high' },
    }),
    // A permissive tool policy added out of band: not a change, shown as kept.
    actual('agent', 'triage', { ...agentSpec(), policies: { toolCalls: { byTool: { shell: 'allow' } } } }),
    actual('apiKey', 'ci', { scopes: ['read'] }),
    actual('secret', 'old-token'),
    actual('connection', 'legacy', { auth: { type: 'none' } }),
  ];
  return computePlan(desiredState(want), actualState(have), { prune: false });
}

export function pruningPlan(): Plan {
  return computePlan(desiredState([desired('secret', 'keep')]), actualState([actual('secret', 'keep'), actual('secret', 'gone')]), { prune: true });
}

/** A plan with --base main: `agent/triage` exists live and main does not declare it (adopted, with a change). */
export function adoptingPlan(): Plan {
  return computePlan(
    desiredState([desired('agent', 'support', agentSpec()), desired('agent', 'triage', agentSpec('gpt-4o'))]),
    actualState([actual('agent', 'support', agentSpec()), actual('agent', 'triage', agentSpec('gpt-4o-mini'))]),
    { prune: false, adoption: { label: 'main (abc123)', declared: new Set(['agent/support']) } },
  );
}
