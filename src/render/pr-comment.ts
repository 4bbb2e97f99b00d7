// The whole pull-request comment of `plan --markdown`: a hidden marker a CI step finds the comment
// by to update it in place, the plan's section(s), and the cut under the forge's size limit with a
// pointer to the full plan. One environment (`-e`) or every environment (`--all-envs`) in one comment,
// where each environment keeps its share of the size limit so a huge one cannot push out the others.
import { changeCount, type Plan } from '../model/resources.js';
import { policyCell, type EnvironmentOutcome } from './all-environments.js';
import { COMMENT_BUDGET, cutComment, fairShares, SUMMARY_BUDGET } from './comment-cut.js';
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

/** Where the full plan is, for a cut comment to point at. */
export interface FullPlanAt {
  /** --markdown-link (or AGENTFORM_MARKDOWN_LINK): a URL; named first when given. */
  link?: string;
  /** --markdown-full: the file the whole comment is written to, kept as the CI job's artifact. */
  artifact?: string;
}

/** The last line of a cut comment: where the full plan is. */
export function cutPointer(fullPlan: FullPlanAt = {}): string {
  const where = fullPlan.link
    ? `The full plan: ${escapeHtml(fullPlan.link)}`
    : fullPlan.artifact
      ? `The full plan is in the CI job's artifact ${code(fullPlan.artifact)}.`
      : "The full plan is in the CI job's log and summary, or run the same `agentform plan` locally.";
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

/** The comment of one environment: its marker, then its section (already rendered), cut to fit `budget`. */
export function renderPlanComment(environment: string, section: string, fullPlan: FullPlanAt = {}, budget = COMMENT_BUDGET): string {
  return cutComment(`${commentMarker(environment)}\n${section}`, cutPointer(fullPlan), budget);
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

/** The head of the every-environment comment: marker, title, destroy banner, the table. Never cut. */
function allEnvironmentsHead(outcomes: readonly CommentOutcome[]): string {
  const destroying = outcomes.filter((outcome) => outcome.plan && (outcome.plan.summary.destroy > 0 || outcome.plan.summary.replace > 0));
  const out = [commentMarker(), '## agentform plan: every environment', ''];
  if (destroying.length > 0) {
    out.push('> [!CAUTION]', `> 🗑️ **This plan destroys or replaces resources in ${destroying.map((outcome) => code(outcome.environment)).join(', ')}.**`, '');
  }
  out.push('| Environment | Add | Change | Replace | Destroy | Policy | Status |', '|---|---:|---:|---:|---:|---|---|', ...outcomes.map(row));
  return out.join('\n');
}

/** An environment's section: its plan, or why it could not be planned. Starts with its heading. */
function sectionOf(outcome: CommentOutcome): string {
  if (outcome.section !== undefined) return outcome.section;
  const why = outcome.errorLines ?? [outcome.error ?? 'unknown error'];
  return [`### agentform plan: ${code(outcome.environment)}`, '', '> ❌ **Could not plan:**', '', ...fenced(why)].join('\n');
}

/** An environment's section cut to its share, with a note saying so; its heading is kept whatever the share. */
function cutSection(section: string, environment: string, share: number): string {
  if (section.length <= share) return section;
  const note = `> ✂️ **${code(environment)} is cut here** to leave room in the comment for every environment.`;
  const cut = cutComment(section, note, share);
  const heading = section.split('\n', 1)[0] ?? '';
  return cut.startsWith(`${heading}\n`) ? cut : `${heading}\n\n${note}`;
}

/**
 * One comment for every environment: the marker, a table of every environment, then each one's
 * section. Over `budget`, the head stays whole and the sections share the rest (fairShares), each
 * cut to its share, and the pointer ends the comment.
 */
export function renderAllEnvironmentsComment(outcomes: readonly CommentOutcome[], fullPlan: FullPlanAt = {}, budget = COMMENT_BUDGET): string {
  const head = allEnvironmentsHead(outcomes);
  const sections = outcomes.map(sectionOf);
  const whole = [head, ...sections].join('\n\n').trimEnd();
  if (whole.length <= budget) return whole;
  const pointer = cutPointer(fullPlan);
  // Head, sections and pointer, a blank line between each.
  const room = budget - head.length - pointer.length - 2 * (sections.length + 1);
  const trimmed = sections.map((section) => section.trimEnd());
  const shares = fairShares(
    trimmed.map((section) => section.length),
    room,
  );
  const kept = outcomes.map((outcome, index) => cutSection(trimmed[index] ?? '', outcome.environment, shares[index] ?? 0));
  // Still over only when there are so many environments that their headings alone do not fit:
  // then the comment is cut as a whole, the last environments' sections going first.
  return cutComment([head, ...kept, pointer].join('\n\n'), pointer, budget);
}
