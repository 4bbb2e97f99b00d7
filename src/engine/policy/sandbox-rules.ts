// Rules about an agent's sandbox: where it may connect, which tools it gets.
import { addressOf } from '../../model/resources.js';
import type { BuiltinRule, RawFinding } from './types.js';
import { arrayAt, objectAt, valueAt } from './spec-access.js';

export const sandboxUnrestrictedEgress: BuiltinRule = {
  id: 'sandbox-unrestricted-egress',
  rationale: 'A sandbox that may reach any host can exfiltrate whatever the agent reads.',
  severity: { other: 'warning', production: 'error' },
  check: (context) =>
    context.byKind('agent').flatMap((agent): RawFinding[] =>
      valueAt(agent.spec, ['sandbox', 'network', 'egress', 'mode']) === 'unrestricted'
        ? [{ address: addressOf('agent', agent.name), path: ['sandbox', 'network', 'egress', 'mode'], message: 'sandbox.network.egress.mode is unrestricted: the sandbox may reach any host' }]
        : [],
    ),
};

export const sandboxToolsTooWide: BuiltinRule = {
  id: 'sandbox-tools-too-wide',
  rationale: 'A sandbox preset wider than read-only with nothing denied gives the agent every write tool of the sandbox.',
  severity: { other: 'warning', production: 'error' },
  check: (context) =>
    context.byKind('agent').flatMap((agent): RawFinding[] => {
      const tools = objectAt(agent.spec, ['sandbox', 'tools']);
      const preset = tools?.preset;
      if (typeof preset !== 'string' || preset === 'read-only' || arrayAt(agent.spec, ['sandbox', 'tools', 'deny']).length > 0) return [];
      return [{ address: addressOf('agent', agent.name), path: ['sandbox', 'tools', 'preset'], message: `sandbox.tools.preset is ${preset} and sandbox.tools.deny is empty: list the tools it must not use, or use read-only` }];
    }),
};
