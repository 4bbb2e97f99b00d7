// A 5 MB prompt must not become a 5 MB plan: text and Markdown cut long values and long diffs and
// say so; the JSON plan keeps every value whole.
import { describe, expect, it } from 'vitest';
import { computePlan } from '../../src/engine/plan.js';
import { renderPlanJson } from '../../src/render/json.js';
import { renderPlanMarkdown } from '../../src/render/markdown.js';
import { renderPlanText } from '../../src/render/text.js';
import { actual, actualState, agentSpec, desired, desiredState } from '../engine/builders.js';

const FIVE_MB = 5 * 1024 * 1024;

function planWith(before: string | undefined, after: string) {
  const want = [desired('agent', 'bot', { ...agentSpec(), system: after })];
  const have = before === undefined ? [] : [actual('agent', 'bot', { ...agentSpec(), system: before })];
  return computePlan(desiredState(want), actualState(have), { prune: false });
}

describe('long values in a plan', () => {
  it.each([
    ['a one-line 5 MB prompt created', undefined, 'x'.repeat(FIVE_MB)],
    ['a 5 MB prompt of many lines created', undefined, 'line of text\n'.repeat(FIVE_MB / 13)],
    ['a 5 MB prompt of many lines rewritten', 'old line\n'.repeat(FIVE_MB / 9), 'new line\n'.repeat(FIVE_MB / 9)],
    ['a one-line 5 MB prompt changed', 'a'.repeat(FIVE_MB), 'b'.repeat(FIVE_MB)],
  ] as const)('%s: text and Markdown stay small and say the value was cut; JSON keeps it whole', (_name, before, after) => {
    const plan = planWith(before, after);
    for (const rendered of [renderPlanText(plan), renderPlanMarkdown(plan)]) {
      expect(rendered.length).toBeLessThan(40_000);
      expect(rendered).toContain('plan --json shows the whole value');
    }
    expect(renderPlanJson(plan).length).toBeGreaterThan(FIVE_MB);
  });

  it('short values are shown whole, without a note', () => {
    const text = renderPlanText(planWith('You are helpful.', 'You are kind.'));
    expect(text).toContain('~ system: "You are helpful." → "You are kind."');
    expect(text).not.toContain('plan --json');
  });
});
