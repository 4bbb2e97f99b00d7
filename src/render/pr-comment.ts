// The whole pull-request comment of `plan --markdown`: a hidden marker a CI step finds the comment
// by to update it in place, the plan's section(s), and the cut under the forge's size limit with a
// pointer to the full plan. One environment (`-e`) or every environment (`--all-envs`) in one comment.
import { changeCount, type Plan } from '../model/resources.js';
import { policyCell, type EnvironmentOutcome } from './all-environments.js';
import { cutComment, SUMMARY_BUDGET } from './comment-cut.js';
import { escapeHtml } from './markdown.js';
import { code } from './values.js';
import { visible } from './visible.js';

/** How many destroyed or replaced resources the banner names before "+N more". */
const BANNER_NAMES = 10;

/**
 * The hidden first line of the comment: `<!-- agentform-plan -->` for every environment,
 * `<!-- agentform-plan:ENV -->` for one, so per-environment comments can sit side by side.
 */
export function commentMarker(environment?: string): string {
  // An HTML comment ends at `--` + `>`: keep the name to characters that cannot end it early.
  return environment === undefined ? '<!-- agentform-plan -->' : `<!-- agentform-plan:${environment.replace(/[^\w.-]|--/g, '_')} -->`;
}

/** The last line of a cut comment: where the full plan is. */
export function cutPointer(link: string | undefined): string {
  const where = link ? `The full plan: ${escapeHtml(link)}` : "The full plan is in the CI job's log and summary, or run the same `agentform plan` locally.";
  return `> ✂️ **The plan is longer than a comment allows and was cut here.** ${where}`;
}

/** The plan's sections for the job summary ($GITHUB_STEP_SUMMARY): no marker (it is no comment), cut only past GitHub's megabyte. */
export function renderStepSummary(sections: readonly string[], budget = SUMMARY_BUDGET): string {
  const pointer = '> ✂️ **The plan is longer than a job summary allows and was cut here.** Run the same `agentform plan` locally for the rest.';
  return cutComment(sections.join('\n\n'), pointer, budget);
}

/** A warning to put first when the plan destroys or replaces anything (a replace deletes, then creates). */
export function destroyBanner(plan: Plan): string[] {
  const gone = plan.changes.filter((change) => change.action === 'delete' || change.action === 'replace');
  if (gone.length === 0) return [];
  const named = gone.slice(0, BANNER_NAMES).map((change) => `${code(change.address)} (${change.action === 'delete' ? 'destroy' : 'replace'})`);
  const more = gone.length > BANNER_NAMES ? `, +${gone.length - BANNER_NAMES} more` : '';
  const count = `${gone.length} resource${gone.length === 1 ? '' : 's'}`;
  return ['> [!CAUTION]', `> 🗑️ **This plan destroys or replaces ${count} in ${code(plan.environment)}:** ${named.join(', ')}${more}`, ''];
}

/** The comment of one environment: its marker, then its section (already rendered), cut to fit. */
export function renderPlanComment(environment: string, section: string, link?: string): string {
  return cutComment(`${commentMarker(environment)}\n${section}`, cutPointer(link));
}

/** One environment of an `--all-envs` comment: its outcome, and its section when it was planned. */
export interface CommentOutcome extends EnvironmentOutcome {
  /** The environment's section (plan --markdown of that environment). */
  section?: string;
  /** Why it could not be planned, as the terminal shows it (render/error-lines.ts): location, problems, hint. */
  errorLines?: string[];
}

/** Lines as a fenced code block: nothing inside renders (no @mention, no link), whatever it quotes. */
function fenced(lines: readonly string[]): string[] {
  const longest = Math.max(0, ...lines.flatMap((line) => (line.match(/`+/g) ?? []).map((run) => run.length)));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [fence, ...lines.map(visible), fence];
}

function row(outcome: CommentOutcome): string {
  const name = code(outcome.environment);
  if (!outcome.plan) return `| ${name} | - | - | - | - | - | ❌ error |`;
  const { add, change, replace, destroy } = outcome.plan.summary;
  const status = changeCount(outcome.plan) === 0 ? 'no changes' : 'changes';
  return `| ${name} | ${add} | ${change} | ${replace} | ${destroy} | ${policyCell(outcome.safety)} | ${status} |`;
}

/** One comment for every environment: the marker, a table of every environment, then each one's section. */
export function renderAllEnvironmentsComment(outcomes: readonly CommentOutcome[], link?: string): string {
  const destroying = outcomes.filter((outcome) => outcome.plan && (outcome.plan.summary.destroy > 0 || outcome.plan.summary.replace > 0));
  const out = [commentMarker(), '## agentform plan: every environment', ''];
  if (destroying.length > 0) {
    out.push('> [!CAUTION]', `> 🗑️ **This plan destroys or replaces resources in ${destroying.map((outcome) => code(outcome.environment)).join(', ')}.**`, '');
  }
  out.push('| Environment | Add | Change | Replace | Destroy | Policy | Status |', '|---|---:|---:|---:|---:|---|---|', ...outcomes.map(row), '');
  for (const outcome of outcomes) {
    if (outcome.section !== undefined) out.push(outcome.section, '');
    else {
      const why = outcome.errorLines ?? [outcome.error ?? 'unknown error'];
      out.push(`### agentform plan: ${code(outcome.environment)}`, '', '> ❌ **Could not plan:**', '', ...fenced(why), '');
    }
  }
  return cutComment(out.join('\n').trimEnd(), cutPointer(link));
}
