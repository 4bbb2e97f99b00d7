// Rules about an agent's sandbox: where it may connect, which tools it gets.
import { resourceRule } from './types.js';
import { arrayAt, valueAt } from './spec-access.js';

export const sandboxUnrestrictedEgress = resourceRule('agent', {
  id: 'sandbox-unrestricted-egress',
  rationale: 'A sandbox that may reach any host can exfiltrate whatever the agent reads.',
  check: (agent) =>
    valueAt(agent.spec, ['sandbox', 'network', 'egress', 'mode']) === 'unrestricted'
      ? [{ path: ['sandbox', 'network', 'egress', 'mode'], message: 'sandbox.network.egress.mode is unrestricted: the sandbox may reach any host' }]
      : [],
});

export const sandboxToolsTooWide = resourceRule('agent', {
  id: 'sandbox-tools-too-wide',
  rationale: 'A sandbox preset wider than read-only with nothing denied gives the agent every write tool of the sandbox.',
  check: (agent) => {
    const preset = valueAt(agent.spec, ['sandbox', 'tools', 'preset']);
    if (typeof preset !== 'string' || preset === 'read-only' || arrayAt(agent.spec, ['sandbox', 'tools', 'deny']).length > 0) return [];
    return [{ path: ['sandbox', 'tools', 'preset'], message: `sandbox.tools.preset is ${preset} and sandbox.tools.deny is empty: list the tools it must not use, or use read-only` }];
  },
});
