import { resolve } from 'node:path';
import { loadProject, specLocator, validateProject, type Problem } from '../../../config/index.js';
import { testFiles } from '../../../config/files.js';
import { renderProblems } from '../../../render/problems.js';
import type { GlobalOptions } from '../../global-options.js';
import { policyJudge } from './policy-problems.js';
import { readToolLock } from '../../../config/tool-lock-file.js';

/** validate without --remote: schemas, references, policy errors; no request (also the MCP `validate` tool). */
export async function offlineProblems(projectDir: string, environment: string | undefined): Promise<Problem[]> {
  // A lock file that cannot be read is check's and plan's error to report; the rules run without it.
  const judge = policyJudge(projectDir, await readToolLock(projectDir).catch(() => undefined));
  const problems = await validateProject(projectDir, { env: process.env, judge, ...(environment ? { environment } : {}) });
  if (problems.some((problem) => problem.severity === 'error')) return problems;
  return [...problems, ...(await capabilityTestProblems(projectDir))];
}

/** Problems of the capability test files (*.test.yaml), once the configuration they name is valid. */
async function capabilityTestProblems(projectDir: string): Promise<Problem[]> {
  // Most projects have none: the walk alone, before reading the project a second time.
  if ((await testFiles(projectDir)).length === 0) return [];
  const [{ checkCapabilityTests }, { ProblemList }] = await Promise.all([import('../../../config/capability-tests.js'), import('../../../config/problems.js')]);
  const problems = new ProblemList();
  await checkCapabilityTests(await loadProject(projectDir), problems);
  return problems.sorted();
}

export async function runValidate(dir: string, options: { env?: string; json?: boolean; remote?: boolean }, globals: GlobalOptions): Promise<number> {
  const projectDir = resolve(dir);
  const problems = await offlineProblems(projectDir, options.env);
  const offlineErrors = problems.some((problem) => problem.severity === 'error');
  if (options.remote && !offlineErrors) {
    // Only --remote needs the HTTP client (and undici): offline validation never loads it.
    const [{ openSession, runContext }, { remoteChecks }] = await Promise.all([
      import('../../../pipeline/session.js'),
      import('../../../pipeline/remote-checks.js'),
    ]);
    const session = await openSession({ dir: projectDir, ...(options.env ? { environment: options.env } : {}) }, runContext(globals));
    try {
      const environment = session.desired.target.name;
      const remote = await remoteChecks(session.client, session.desired, specLocator(session.project, environment));
      problems.push(...remote.problems);
      for (const notice of remote.notices) process.stderr.write(`notice: ${notice}\n`);
    } finally {
      await session.close();
    }
  } else if (options.remote && !options.json) {
    process.stderr.write('notice: remote checks skipped until the configuration is valid offline\n');
  }
  process.stdout.write(renderProblems(problems, { projectDir, json: options.json === true, githubActions: process.env.GITHUB_ACTIONS === 'true' }));
  return problems.some((problem) => problem.severity === 'error') ? 1 : 0;
}
