// validate's share of the one verdict (docs/policy.md): once the configuration is valid, the
// policy rules of each environment validated, exactly as `check` runs them. An error-severity
// finding is a validate error, so a green validate never hides what check, plan and apply refuse;
// warnings are check's to list (the rules at warning do not run here).
import type { Problem, Project } from '../../../config/index.js';
import type { DesiredState } from '../../../model/resources.js';
import type { ToolSurfaceLock } from '../../../model/tool-lock.js';
import { policyErrors } from '../../../safety/index.js';

/** validateProject's `judge`: each environment's policy errors as problems located in the project. */
export function policyJudge(
  projectDir: string,
  lock: ToolSurfaceLock | undefined,
): (project: Project, environment: string, desired: DesiredState) => Problem[] {
  return (project, environment, desired) =>
    policyErrors({ project, desired, cwd: projectDir, ...(lock ? { lock } : {}) }).map((finding) => ({
      severity: 'error',
      message: `[${finding.rule}] ${finding.address}: ${finding.message} (policy of environment ${environment}; agentform check -e ${environment})`,
      ...(finding.location ? { location: finding.location } : {}),
    }));
}
