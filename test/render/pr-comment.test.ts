import { describe, expect, it } from 'vitest';
import { computePlan } from '../../src/engine/plan.js';
import { COMMENT_LIMIT, cutComment, openingFence, SUMMARY_BUDGET } from '../../src/render/comment-cut.js';
import { renderPlanAs, renderPlanMarkdownSection } from '../../src/render/plan-formats.js';
import { commentMarker, cutPointer, destroyBanner, renderAllEnvironmentsComment, renderPlanComment, renderStepSummary } from '../../src/render/pr-comment.js';
import { actual, actualState, desired, desiredState } from '../engine/builders.js';
import type { SafetyReview } from '../../src/model/safety.js';
import { balanced, hugePlan } from './comment-fixtures.js';
import { pruningPlan, samplePlan } from './fixtures.js';

const context = { target: 'https://api.example.test', color: false };

describe('the pull-request comment of plan --markdown', () => {
  it('starts with a marker per environment, or one for every environment', () => {
    expect(renderPlanAs('markdown', samplePlan(), context).split('\n').slice(0, 2)).toEqual([
      '<!-- agentform-plan:staging -->',
      '### agentform plan: `staging`',
    ]);
    expect(renderAllEnvironmentsComment([]).split('\n')[0]).toBe('<!-- agentform-plan -->');
    // A name that could end the HTML comment early cannot.
    expect(commentMarker('a-->b')).toBe('<!-- agentform-plan:a__b -->');
  });

  it('warns first when something is destroyed or replaced, naming it', () => {
    expect(destroyBanner(pruningPlan())).toEqual([
      '> [!CAUTION]',
      '> 🗑️ **This plan destroys or replaces 1 resource in `staging`:** `secret/gone` (destroy)',
      '',
    ]);
    const comment = renderPlanAs('markdown', samplePlan(), context);
    expect(comment).toContain('> 🗑️ **This plan destroys or replaces 1 resource in `staging`:** `apiKey/ci` (replace)');
    // Above the table: the first thing a reviewer reads.
    expect(comment.indexOf('[!CAUTION]')).toBeLessThan(comment.indexOf('| Add |'));
    const quiet = computePlan(desiredState([desired('secret', 'keep')]), actualState([actual('secret', 'keep')]), { prune: false });
    expect(destroyBanner(quiet)).toEqual([]);
    expect(renderPlanAs('markdown', quiet, context)).not.toContain('CAUTION');
  });

  it('leaves a comment that fits as it is', () => {
    const comment = renderPlanAs('markdown', samplePlan(), context);
    expect(comment).not.toContain('✂️');
    expect(balanced(comment)).toEqual({ details: 0 });
  });

  it('cuts a plan over the limit at a line, closing the fence and <details>, and says where the full plan is', () => {
    const plan = hugePlan(300);
    const whole = renderPlanAs('markdown', plan, { ...context, markdownLink: 'https://ci.example.test/runs/7' });
    expect(whole.length).toBeLessThan(COMMENT_LIMIT);
    expect(whole.length).toBeGreaterThan(50_000);
    expect(whole.split('\n')[0]).toBe('<!-- agentform-plan:staging -->');
    expect(whole).toContain('| 0 | 300 | 0 | 0 | 0 |');
    expect(whole.trimEnd().split('\n').at(-1)).toBe(
      '> ✂️ **The plan is longer than a comment allows and was cut here.** The full plan: https://ci.example.test/runs/7',
    );
    expect(balanced(whole)).toEqual({ details: 0 });
    // Without a link: a sentence that says where to look.
    expect(renderPlanComment('staging', 'x\n'.repeat(40_000))).toContain("The full plan is in the CI job's log");
  });

  it.each([
    [{}, "The full plan is in the CI job's log and summary, or run the same `agentform plan` locally."],
    [{ link: 'https://ci.example.test/runs/7' }, 'The full plan: https://ci.example.test/runs/7'],
    [{ artifact: 'plan-full.md' }, "The full plan is in the CI job's artifact `plan-full.md`."],
    // The link wins: it can point at the artifact itself.
    [{ link: 'https://ci.example.test/runs/7', artifact: 'plan-full.md' }, 'The full plan: https://ci.example.test/runs/7'],
  ])('points a cut comment given %j at the full plan', (fullPlan, where) => {
    expect(cutPointer(fullPlan)).toBe(`> ✂️ **The plan is longer than a comment allows and was cut here.** ${where}`);
    expect(renderPlanComment('staging', 'x\n'.repeat(40_000), fullPlan).endsWith(`\n\n${cutPointer(fullPlan)}`)).toBe(true);
  });

  it('cuts inside an open fence and <details> and closes both', () => {
    const body = ['# head', '<details><summary>s</summary>', '', '````diff', ...Array.from({ length: 200 }, (_, index) => `+ line ${index} \`\`\``)].join('\n');
    const cut = cutComment(body, 'POINTER', 1_000);
    expect(cut.length).toBeLessThanOrEqual(1_000);
    expect(cut.split('\n').slice(-4)).toEqual(['````', '</details>', '', 'POINTER']);
    // Cut after a whole line: the line before the closing fence is one of the body's.
    expect(body.split('\n')).toContain(cut.split('\n').at(-5));
    expect(balanced(cut)).toEqual({ details: 0 });
    expect(cut.startsWith('# head\n')).toBe(true);
  });

  it.each([
    ['```', '```'],
    ['````diff', '````'],
    ['```js title="a"', '```'],
    ['   ```', '```'],
    ['~~~ a`b', '~~~'],
    // A backtick fence's info string holds no backtick: a line opening with a code span is text.
    ['```a`b```', undefined],
    ['``` `x` ```', undefined],
    ['    ```', undefined],
    ['``', undefined],
  ])('reads %j as opening the fence %j (CommonMark)', (line, fence) => {
    expect(openingFence(line)).toBe(fence);
  });

  it('closes no fence a code span at the start of a line seemed to open', () => {
    const body = ['# head', '```a`b``` is inline code', ...Array.from({ length: 200 }, (_, index) => `line ${index}`)].join('\n');
    const cut = cutComment(body, 'POINTER', 500);
    const [last, blank, pointer] = cut.split('\n').slice(-3);
    expect([blank, pointer]).toEqual(['', 'POINTER']);
    expect(last).toMatch(/^line \d+$/);
  });

  // plan exits 1 when apply would refuse: the comment says so first, so a cut one still does.
  it('puts the errors apply refuses on first, where a cut comment keeps them', () => {
    const finding = (rule: string, severity: 'error' | 'warning', suppressed?: string) => ({
      rule,
      severity,
      address: 'agent/agent-000' as const,
      path: [],
      message: `${rule} says no`,
      ...(suppressed ? { suppressed: { reason: suppressed } } : {}),
    });
    const safety: SafetyReview = {
      environment: 'staging',
      findings: [finding('plan-changed-agents', 'error'), finding('limits-missing', 'warning'), finding('plan-destroy', 'error', 'retired')],
      notes: [],
      counts: { errors: 1, warnings: 1, suppressed: 1 },
    };
    const comment = renderPlanComment('staging', renderPlanMarkdownSection(hugePlan(40), { ...context, safety }));
    expect(comment).toContain('cut here');
    expect(comment).toContain('> ⛔ **apply would refuse this plan: 1 policy error** (every finding is listed below).');
    expect(comment).toContain('error [plan-changed-agents] agent/agent-000: plan-changed-agents says no');
    const banner = comment.slice(0, comment.indexOf('| Add |'));
    expect(banner).not.toContain('limits-missing');
    expect(banner).not.toContain('plan-destroy');
    // No error apply refuses on: no banner.
    const passing = { ...safety, findings: safety.findings.slice(1), counts: { errors: 0, warnings: 1, suppressed: 1 } };
    expect(renderPlanMarkdownSection(samplePlan(), { ...context, safety: passing })).not.toContain('apply would refuse');
  });

  it('writes the job summary whole under its megabyte, and cuts it past', () => {
    const section = renderPlanMarkdownSection(hugePlan(40), context);
    expect(section.length).toBeGreaterThan(COMMENT_LIMIT);
    expect(renderStepSummary([section, section])).toBe(`${section}\n\n${section}`);
    const cut = renderStepSummary([section, section], section.length);
    expect(cut.length).toBeLessThanOrEqual(section.length);
    expect(cut).toContain('job summary allows and was cut here');
    expect(balanced(cut)).toEqual({ details: 0 });
    // The default budget: what GitHub takes (1 MiB), less a margin.
    const huge = 'x'.repeat(100).concat('\n').repeat(12_000);
    expect(renderStepSummary([huge]).length).toBeLessThanOrEqual(SUMMARY_BUDGET);
    expect(SUMMARY_BUDGET).toBeLessThan(1024 * 1024);
  });

  it("shows an environment's error in a code block no quoted text escapes (@mentions, links, fences)", () => {
    const lines = ['Error: agentform.yaml:3:1: bad name ```@team [x](https://evil.example)', '  hint: fix it'];
    const comment = renderAllEnvironmentsComment([{ environment: 'dev', error: 'bad', errorLines: lines }]);
    expect(comment).toContain(`> ❌ **Could not plan:**\n\n\`\`\`\`\n${lines.join('\n')}\n\`\`\`\``);
  });

  it('puts every environment in one comment under one table, and keeps the marker when cut', () => {
    const staging = samplePlan();
    const production = { ...pruningPlan(), environment: 'production' };
    const comment = renderAllEnvironmentsComment([
      { environment: 'staging', plan: staging, section: renderPlanAs('markdown', staging, context).split('\n').slice(1).join('\n') },
      { environment: 'production', plan: production, section: '### agentform plan: `production`' },
      { environment: 'dev', error: 'no credential for dev' },
    ]);
    expect(comment.split('\n').slice(0, 3)).toEqual(['<!-- agentform-plan -->', '## agentform plan: every environment', '']);
    expect(comment).toContain('> 🗑️ **This plan destroys or replaces resources in `staging`, `production`.**');
    expect(comment).toContain('| `staging` | 1 | 1 | 1 | 0 | - | changes |');
    expect(comment).toContain('| `production` | 0 | 0 | 0 | 1 | - | changes |');
    expect(comment).toContain('| `dev` | - | - | - | - | - | ❌ error |');
    expect(comment).toContain('> ❌ **Could not plan:**\n\n```\nno credential for dev\n```');
    expect((comment.match(/<!-- agentform-plan/g) ?? []).length).toBe(1);

    const huge = hugePlan(300);
    const cut = renderAllEnvironmentsComment([
      { environment: 'staging', plan: huge, section: 'x' },
      { environment: 'production', plan: huge, section: renderPlanAs('markdown', huge, context) },
    ]);
    expect(cut.length).toBeLessThan(COMMENT_LIMIT);
    expect(cut.startsWith('<!-- agentform-plan -->\n')).toBe(true);
    expect(cut).toContain('✂️');
    expect(balanced(cut)).toEqual({ details: 0 });
  });
});
