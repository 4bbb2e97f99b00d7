// Strict mode (`strictTools`) derives agents' tool policies from agentform.lock.yaml inside the plan
// (pipeline/strict-tools.ts). Commands that write around the plan, or change the lock after the
// policy was derived, would write a policy the lock does not imply: they refuse in a strict
// environment, before anything is read or written, and say which command does it instead.
import { UserError } from '../errors.js';
import type { DesiredState } from '../model/resources.js';

const WHY = 'agentform.yaml sets strictTools: true for';

/** promote and rollback write an agent's definition as is: plan/apply derive its policy instead. */
export function refuseDirectAgentWriteInStrict(target: DesiredState['target'], command: 'promote' | 'roll back', agent: string): void {
  if (!target.strictTools) return;
  throw new UserError(
    `refusing to ${command} ${agent} into ${target.name}: ${WHY} ${target.name}, whose agents' tool policies are derived from agentform.lock.yaml by plan and apply; ${command} writes the definition as is`,
    command === 'promote'
      ? `declare the promotion in the configuration (promote: on the agent) and run \`agentform plan -e ${target.name}\`, then \`agentform apply -e ${target.name}\``
      : `change the agent's configuration back (git revert) and run \`agentform plan -e ${target.name}\`, then \`agentform apply -e ${target.name}\``,
  );
}

/** --update-lock changes the lock after the plan derived the policies from it: the accepted tool would stay denied. */
export function refuseUpdateLockInStrict(target: DesiredState['target']): void {
  if (!target.strictTools) return;
  throw new UserError(
    `refusing apply --update-lock in ${target.name}: ${WHY} ${target.name}, so the plan derives tool policies from the lock before apply would change it; the accepted tools would stay denied`,
    `run \`agentform lock --update -e ${target.name}\`, review and commit agentform.lock.yaml, then \`agentform apply -e ${target.name}\``,
  );
}
