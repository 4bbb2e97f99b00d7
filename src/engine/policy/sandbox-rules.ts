// Rules about an agent's sandbox: where it may connect, which tools it gets. A sandbox field left
// to the server is unknown and judged as its worst value (see tool-rules.ts).
import { resourceRule } from './types.js';
import { arrayAt, objectAt, valueAt } from './spec-access.js';

export const sandboxUnrestrictedEgress = resourceRule('agent', {
  id: 'sandbox-unrestricted-egress',
  rationale: 'A sandbox that may reach any host can exfiltrate whatever the agent reads.',
  check: (agent) => {
    if (!objectAt(agent.spec, ['sandbox'])) return [];
    const mode = valueAt(agent.spec, ['sandbox', 'network', 'egress', 'mode']);
    if (mode === 'unrestricted')
      return [{ path: ['sandbox', 'network', 'egress', 'mode'], message: 'sandbox.network.egress.mode is unrestricted: the sandbox may reach any host' }];
    if (mode === undefined || mode === null)
      return [
        {
          path: ['sandbox'],
          message: "sandbox.network.egress.mode is not set: the server's default may let the sandbox reach any host; set a restricted mode",
        },
      ];
    return [];
  },
});

export const sandboxToolsTooWide = resourceRule('agent', {
  id: 'sandbox-tools-too-wide',
  rationale: 'A sandbox preset wider than read-only with nothing denied gives the agent every write tool of the sandbox.',
  check: (agent) => {
    if (!objectAt(agent.spec, ['sandbox'])) return [];
    const preset = valueAt(agent.spec, ['sandbox', 'tools', 'preset']);
    if (preset === 'read-only' || arrayAt(agent.spec, ['sandbox', 'tools', 'deny']).length > 0) return [];
    if (preset === undefined || preset === null) {
      return [
        {
          path: ['sandbox'],
          message:
            "sandbox.tools.preset is not set and sandbox.tools.deny is empty: the server's default preset may be wider than read-only; set it, or list the tools it must not use",
        },
      ];
    }
    if (typeof preset !== 'string') return [];
    return [
      {
        path: ['sandbox', 'tools', 'preset'],
        message: `sandbox.tools.preset is ${preset} and sandbox.tools.deny is empty: list the tools it must not use, or use read-only`,
      },
    ];
  },
});
