// Strict mode in the plan: the tool policy entries derived from the lock, apart from the changes
// (they are not what the user wrote, and a reviewer must see which entries the lock decided).
import type { DerivedToolPolicy } from '../model/tool-lock.js';
import { visible } from './visible.js';

export const DERIVED_HEADING = 'Tool policy derived from agentform.lock.yaml (strictTools; not written in the configuration):';

/** Per agent: its derived default, the derived byTool entries, what is denied, what is not locked. */
export function derivedPolicyLines(policies: readonly DerivedToolPolicy[]): string[] {
  const out: string[] = [];
  for (const policy of policies) {
    const written = policy.userDefault === undefined ? 'none written' : `configuration: ${visible(policy.userDefault)}`;
    out.push(`agent/${visible(policy.agent)}: default = deny, any tool not listed is refused (${written})`);
    for (const entry of policy.entries) out.push(`  + byTool.${visible(entry.tool)} = ${visible(entry.decision)}  # ${visible(entry.from)}, in the lock`);
    for (const entry of policy.denied ?? [])
      out.push(`  - ${visible(entry.tool)}: deny  # ${visible(entry.from)} serves it, the lock does not record it (agentform lock --update to allow)`);
    for (const entry of policy.collisions ?? [])
      out.push(
        `  ! ${visible(entry.tool)}: ${visible(entry.decision)}  # ${visible(entry.from)} serves it unlocked, named like a derived entry (byTool is by bare tool name)`,
      );
    for (const connection of policy.unlockedConnections)
      out.push(`  ! connection ${visible(connection)} has no lock entry: all its tools are denied (run agentform lock)`);
  }
  return out;
}

/** The text block, heading and lines, or nothing when strict mode is off. */
export function derivedPolicyTextBlock(policies: readonly DerivedToolPolicy[] | undefined): string[] {
  if (!policies || policies.length === 0) return [];
  return [DERIVED_HEADING, ...derivedPolicyLines(policies).map((line) => `  ${line}`), ''];
}
