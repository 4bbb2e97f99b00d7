// plan's share of the one verdict: a plan whose review apply would refuse (an error-severity finding
// stands) exits 1, so that a pull request does not go green on a plan its merge cannot apply. The
// plan is printed and saved first, as for any plan; only the exit code and one stderr line differ.
import { UserError } from '../../../errors.js';
import { findingsApplyRefuses } from '../../../safety/index.js';
import type { SafetyReview } from '../../../model/safety.js';
import { reportError } from '../../report-error.js';

/** Why plan exits 1 for this environment's review, or undefined when apply would not refuse on policy. */
export function policyRefusalLine(review: SafetyReview): string | undefined {
  const count = findingsApplyRefuses(review).length;
  if (count === 0) return undefined;
  return `agentform: the plan for ${review.environment} has ${count} policy error${count === 1 ? '' : 's'}; apply would refuse it (see the findings above)`;
}

/**
 * Says on stderr why plan exits 1: the lines as text, or under --json one `{"error": …}` object
 * (code `policy_refused`, as apply's refusal) like every other error, for scripts that parse it.
 */
export function reportPolicyRefusals(lines: readonly string[], json: boolean): void {
  if (lines.length === 0) return;
  if (!json) {
    for (const line of lines) process.stderr.write(`${line}\n`);
    return;
  }
  const message = lines.map((line) => line.replace(/^agentform: /, '').replace(' (see the findings above)', '')).join('; ');
  reportError(new UserError(message, 'the findings are in safety.findings of the plan JSON').withCode('policy_refused'), false, true);
}
