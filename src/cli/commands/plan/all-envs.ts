// plan --all-envs: every environment of the project in turn (declaration order), each rendered as
// plan renders it, then one summary. An environment that fails is reported and the others still run.
// Each environment reads with its own credential (AGENTFORM_TOKEN_<ENV>). With --markdown: one
// pull-request comment for every environment, printed at the end.
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import { loadProject } from '../../../config/index.js';
import { UserError } from '../../../errors.js';
import { renderPlanAs, renderPlanMarkdownSection } from '../../../render/plan-formats.js';
import { renderAllEnvironmentsComment, renderStepSummary, type CommentOutcome } from '../../../render/pr-comment.js';
import { planCapabilityTests } from '../../../pipeline/capability-tests.js';
import { reviewPlan } from '../../../safety/index.js';
import type { GlobalOptions } from '../../global-options.js';
import { renderAllEnvironmentsJson, renderAllEnvironmentsSummary } from '../../../render/all-environments.js';
import { useColor } from '../../terminal.js';
import { planSession } from '../../../pipeline/plan.js';
import { openSession, runContext } from '../../../pipeline/session.js';
import { ENV_PLACEHOLDER, writeSavedPlan } from './save.js';
import { fullPlanAtOf, planInputsOf, type PlanCommandOptions } from './options.js';
import { writeFullComment } from './markdown-full.js';
import { changeCount } from '../../../model/resources.js';
import { openChangeWindows } from '../../../safety/change-windows.js';
import { nowOf } from '../../break-glass.js';
import { reportError } from '../../report-error.js';
import { errorLines } from '../../../render/error-lines.js';
import { policyRefusalLine, reportPolicyRefusals } from './policy-verdict.js';

/** How many of an environment's problems its comment section lists (the comment has a size limit). */
const COMMENT_PROBLEMS = 20;

/** The environments to plan: every one declared, or the ones --envs names (a CI job leaves out `dev`). */
function environmentsOf(declared: Record<string, unknown>, named: string | undefined): string[] {
  const all = Object.keys(declared);
  if (named === undefined) return all;
  const names = named
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !all.includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new UserError(
      `--envs ${named}: ${unknown.length > 0 ? `no environment ${unknown.join(', ')}` : 'no environment named'} (declared: ${all.join(', ')})`,
    );
  }
  return names;
}

export async function runPlanAllEnvironments(dir: string, options: PlanCommandOptions, globals: GlobalOptions): Promise<number> {
  if (options.env) throw new UserError(`${options.envs !== undefined ? '--envs' : '--all-envs'} and -e/--env cannot be combined`);
  if (options.out && !options.out.includes(ENV_PLACEHOLDER)) {
    throw new UserError(`--all-envs saves one plan per environment: put ${ENV_PLACEHOLDER} in the --out file name (--out 'plan-${ENV_PLACEHOLDER}.json')`);
  }
  const project = await loadProject(resolve(dir));
  const outcomes: CommentOutcome[] = [];
  // --json wins over --markdown, as for one environment.
  const markdown = options.markdown === true && options.json !== true;
  const now = nowOf(process.env);
  for (const environment of environmentsOf(project.environments, options.envs)) {
    try {
      const session = await openSession({ dir: resolve(dir), environment, readAhead: true }, runContext(globals));
      try {
        const run = await planSession(session, planInputsOf(options));
        const safety = await reviewPlan(run);
        const windows = openChangeWindows(project, environment, now);
        // Saved only once the environment rendered: a failure leaves no plan file behind.
        const save = async () => {
          if (options.out) await writeSavedPlan(run, options.out.replaceAll(ENV_PLACEHOLDER, environment), policyRefusalLine(safety) !== undefined);
        };
        if (markdown) {
          const capabilityTests = await planCapabilityTests(session.project, run.desired);
          const context = { target: session.targetLabel, color: false, safety, openChangeWindows: windows, ...(capabilityTests ? { capabilityTests } : {}) };
          const section = renderPlanMarkdownSection(run.plan, context);
          await save();
          outcomes.push({ environment, plan: run.plan, safety, section });
          continue;
        }
        await save();
        outcomes.push({ environment, plan: run.plan, safety });
        if (!options.json)
          process.stdout.write(
            `== ${environment} (${session.targetLabel}) ==\n${renderPlanAs('text', run.plan, { target: session.targetLabel, color: useColor(globals), safety, openChangeWindows: windows })}\n\n`,
          );
      } finally {
        await session.close();
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      outcomes.push({ environment, error: message, errorLines: errorLines(error, COMMENT_PROBLEMS) });
      if (!options.json && !markdown) process.stdout.write(`== ${environment} ==\nError: ${message}\n\n`);
      // The reason on stderr in every mode: with --json or --markdown, stdout holds only the document.
      if (!options.json) process.stderr.write(`agentform: ${environment}: could not plan\n`);
      reportError(error, globals.debug === true, options.json === true);
    }
  }
  if (options.json) {
    process.stdout.write(`${renderAllEnvironmentsJson(outcomes)}\n`);
  } else if (markdown) {
    process.stdout.write(`${renderAllEnvironmentsComment(outcomes, fullPlanAtOf(options, process.env))}\n`);
    // The same comment with no budget: never cut, so no pointer. Beside the printed one, failed environments included.
    if (options.markdownFull) await writeFullComment(options.markdownFull, renderAllEnvironmentsComment(outcomes, {}, Infinity));
    // The job summary takes a megabyte: every section, cut only past that.
    const sections = outcomes.flatMap((outcome) => (outcome.section === undefined ? [] : [outcome.section]));
    if (process.env.GITHUB_STEP_SUMMARY) await fs.promises.appendFile(process.env.GITHUB_STEP_SUMMARY, `${renderStepSummary(sections)}\n`);
  } else {
    process.stdout.write(`${renderAllEnvironmentsSummary(outcomes)}\n`);
  }
  // Every environment apply would refuse is named, after the whole document: one is enough to fail.
  const refusals = outcomes.flatMap((outcome) => {
    const line = outcome.safety && policyRefusalLine(outcome.safety);
    return line ? [line] : [];
  });
  reportPolicyRefusals(refusals, options.json === true);
  const failed = outcomes.filter((outcome) => outcome.error !== undefined);
  if (failed.length > 0) throw new UserError(`could not plan ${failed.map((outcome) => outcome.environment).join(', ')}`);
  if (refusals.length > 0) return 1;
  const changed = outcomes.some((outcome) => outcome.plan && changeCount(outcome.plan) > 0);
  return options.detailedExitcode && changed ? 2 : 0;
}
