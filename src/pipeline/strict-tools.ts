// Strict mode in the plan: the lock file (config/) meets the derivation (engine/) before the diff,
// so plan, apply and saved plans all send the derived policies.
import { readToolLock } from '../config/tool-lock-file.js';
import { withStrictToolPolicies, type DerivedToolPolicy } from '../engine/strict-tools.js';
import type { DesiredState } from '../model/resources.js';

/**
 * The desired state with each agent's tool policy derived from the lock, when the environment is
 * strict. `configured`: the state before declarative promotion (promoted agents keep its tool policy).
 */
export async function applyStrictTools(desired: DesiredState, configured?: DesiredState): Promise<{ desired: DesiredState; derived?: DerivedToolPolicy[] }> {
  if (!desired.target.strictTools) return { desired };
  const lock = await readToolLock(desired.projectDir);
  const environments = lock?.environments ?? {};
  const surfaces = Object.hasOwn(environments, desired.target.name) ? (environments[desired.target.name] ?? {}) : {};
  return withStrictToolPolicies(desired, surfaces, configured);
}
