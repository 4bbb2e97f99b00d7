// The every-environment comment over its size limit (issue 48): the head is kept whole and each
// environment keeps its share of the rest, so a huge environment cannot push the others out.
import { describe, expect, it } from 'vitest';
import { COMMENT_BUDGET, fairShares } from '../../src/render/comment-cut.js';
import { renderPlanMarkdownSection } from '../../src/render/plan-formats.js';
import { cutPointer, renderAllEnvironmentsComment, type CommentOutcome } from '../../src/render/pr-comment.js';
import { balanced, hugePlan } from './comment-fixtures.js';
import { samplePlan } from './fixtures.js';

const context = { target: 'https://api.example.test', color: false };
const huge = hugePlan(300);
const POINTER = cutPointer({ artifact: 'plan-full.md' });

function outcome(environment: string, size: 'huge' | 'small'): CommentOutcome {
  const plan = { ...(size === 'huge' ? huge : samplePlan()), environment };
  return { environment, plan, section: renderPlanMarkdownSection(plan, context) };
}

const heading = (environment: string) => `### agentform plan: \`${environment}\``;
const cutNote = (environment: string) => `> ✂️ **\`${environment}\` is cut here** to leave room in the comment for every environment.`;

/** Each environment's part of the comment: from its heading to the next heading, or to the pointer. */
function parts(comment: string, environments: readonly string[]): Map<string, string> {
  const starts = [...environments.map((environment) => comment.indexOf(heading(environment))), comment.lastIndexOf(POINTER)];
  return new Map(environments.map((environment, index) => [environment, comment.slice(starts[index], starts[index + 1]).trimEnd()]));
}

describe('fairShares: each part its share of a budget, water-filling', () => {
  it.each([
    ['all fit', [10, 20], 100, [10, 20]],
    ['a short part leaves the rest to a long one', [10, 1_000], 100, [10, 90]],
    ['long parts split evenly', [1_000, 1_000, 1_000], 90, [30, 30, 30]],
    ['in any order', [1_000, 5, 1_000], 65, [30, 5, 30]],
    ['a part shorter than an even share but not than the first', [40, 1_000, 25], 90, [32, 33, 25]],
    ['no budget', [10, 10], -5, [0, 0]],
    ['no part', [], 100, []],
  ])('%s', (_, lengths, budget, shares) => {
    expect(fairShares(lengths, budget)).toEqual(shares);
    expect(fairShares(lengths, budget).reduce((sum, share) => sum + share, 0)).toBeLessThanOrEqual(Math.max(0, budget));
  });
});

describe('the every-environment comment over its budget', () => {
  it.each<[string, Array<[string, 'huge' | 'small']>]>([
    [
      'the first environment huge, the second small',
      [
        ['staging', 'huge'],
        ['production', 'small'],
      ],
    ],
    [
      'the small one first',
      [
        ['staging', 'small'],
        ['production', 'huge'],
      ],
    ],
    [
      'three environments, all huge',
      [
        ['dev', 'huge'],
        ['staging', 'huge'],
        ['production', 'huge'],
      ],
    ],
  ])('%s: every environment appears, each with its share, the whole within budget', (_, environments) => {
    const outcomes = environments.map(([environment, size]) => outcome(environment, size));
    const comment = renderAllEnvironmentsComment(outcomes, { artifact: 'plan-full.md' });
    expect(comment.length).toBeLessThanOrEqual(COMMENT_BUDGET);
    expect(balanced(comment)).toEqual({ details: 0 });
    expect(comment.startsWith('<!-- agentform-plan -->\n## agentform plan: every environment\n')).toBe(true);
    expect(comment.endsWith(`\n\n${POINTER}`)).toBe(true);
    const names = environments.map(([environment]) => environment);
    for (const environment of names) {
      expect(comment.split(heading(environment))).toHaveLength(2);
      expect(comment).toMatch(new RegExp(`^\\| \`${environment}\` \\| `, 'm'));
    }
    // A small environment is whole; the huge ones share what is left evenly, each cut with its note.
    const byName = parts(comment, names);
    const small = outcomes.filter((_, index) => environments[index]?.[1] === 'small').map((each) => each.section?.trimEnd() ?? '');
    for (const section of small) expect(comment).toContain(`\n\n${section}\n\n`);
    const cut = outcomes.filter((_, index) => environments[index]?.[1] === 'huge').map((each) => each.environment);
    // The head with the blank line after it; the sections and the pointer, a blank line between each.
    const head = comment.slice(0, comment.indexOf(heading(names[0] ?? '')));
    const share = (COMMENT_BUDGET - head.length - POINTER.length - 2 * names.length - small.reduce((sum, section) => sum + section.length, 0)) / cut.length;
    for (const environment of cut) {
      const part = byName.get(environment) ?? '';
      expect(part.endsWith(cutNote(environment))).toBe(true);
      // Shares are whole characters: the last may hold one more.
      expect(part.length).toBeLessThanOrEqual(share + 1);
      // Cut at a whole line: within a line or two of its share.
      expect(part.length).toBeGreaterThan(share - 400);
    }
  });

  it('is what it was before budgets when it fits: the head, then each section, nothing cut', () => {
    const outcomes: CommentOutcome[] = [outcome('staging', 'small'), outcome('production', 'small'), { environment: 'dev', error: 'no credential for dev' }];
    const comment = renderAllEnvironmentsComment(outcomes, { artifact: 'plan-full.md' });
    const sections = outcomes.slice(0, 2).map((each) => each.section);
    expect(comment).toBe(
      [
        '<!-- agentform-plan -->',
        '## agentform plan: every environment',
        '',
        '> [!CAUTION]',
        '> 🗑️ **This plan destroys or replaces resources in `staging`, `production`.**',
        '',
        '| Environment | Add | Change | Replace | Destroy | Policy | Status |',
        '|---|---:|---:|---:|---:|---|---|',
        '| `staging` | 1 | 1 | 1 | 0 | - | changes |',
        '| `production` | 1 | 1 | 1 | 0 | - | changes |',
        '| `dev` | - | - | - | - | - | ❌ error |',
        '',
        sections[0],
        '',
        sections[1],
        '',
        '### agentform plan: `dev`',
        '',
        '> ❌ **Could not plan:**',
        '',
        '```',
        'no credential for dev',
        '```',
      ].join('\n'),
    );
    // Exactly at the budget: whole; one character under: cut, and within it.
    expect(renderAllEnvironmentsComment(outcomes, {}, comment.length)).toBe(comment);
    const tight = renderAllEnvironmentsComment(outcomes, {}, comment.length - 1);
    expect(tight.length).toBeLessThanOrEqual(comment.length - 1);
    expect(tight).toContain('✂️');
  });

  it.each([1_500, 1_000])('keeps every heading under a budget (%i) that leaves each environment almost nothing', (budget) => {
    const names = ['dev', 'staging', 'production'];
    const comment = renderAllEnvironmentsComment(
      names.map((environment) => outcome(environment, 'huge')),
      {},
      budget,
    );
    expect(comment.length).toBeLessThanOrEqual(budget);
    expect(balanced(comment)).toEqual({ details: 0 });
    for (const environment of names) expect(comment).toContain(heading(environment));
  });
});
