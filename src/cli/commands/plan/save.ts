// plan --out: the saved plan `agentform apply <file>` takes, written owner-only (it holds no secret
// value, but names every resource and remote object it was made from).
import { relative, resolve } from 'node:path';
import { savePlan } from '../../../apply/saved-plan.js';
import type { PlanRun } from '../../../pipeline/plan.js';
import { writeFileAtomic } from '../../../util/atomic-write.js';

/** The placeholder of `plan --all-envs --out`: each environment's plan is saved to its own file. */
export const ENV_PLACEHOLDER = '{env}';

/**
 * `refused`: apply would refuse this plan on policy (plan exits 1); the file is still written, for
 * the record, but the line says so rather than suggesting the apply.
 */
export async function writeSavedPlan(run: PlanRun, file: string, refused = false): Promise<void> {
  await writeFileAtomic(
    resolve(file),
    `${JSON.stringify(savePlan(run.plan, run.planned.desired, run.planned.actual, relative(process.cwd(), run.desired.projectDir) || '.'), null, 2)}\n`,
    { mode: 0o600 },
  );
  process.stderr.write(
    refused
      ? `Saved the plan to ${file}; apply would refuse it until its policy errors are fixed\n`
      : `Saved the plan to ${file}; apply it with: agentform apply ${file}\n`,
  );
}
