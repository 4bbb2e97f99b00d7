// How each renderer shows an adoption (`--base`): its own symbol and verb, its count named only
// when there is one (every other plan renders as before), and the base the plan was judged against.
import { describe, expect, it } from 'vitest';
import type { EnvironmentOutcome } from '../../src/render/all-environments.js';
import { renderAllEnvironmentsSummary } from '../../src/render/all-environments.js';
import { renderPlanJson } from '../../src/render/json.js';
import { renderPlanMarkdown } from '../../src/render/markdown.js';
import { renderPlanText, summaryLine } from '../../src/render/text.js';
import { adoptingPlan, samplePlan } from './fixtures.js';

describe('an adoption in the plan renderers', () => {
  it('text: the base, the ~> block with its reason and diff, and the count', () => {
    const plan = { ...adoptingPlan(), adoptionBase: 'main (abc123)' };
    const text = renderPlanText(plan);
    expect(text).toContain('Base (--base): main (abc123); a live resource it does not declare is adopted (~>)');
    expect(text).toContain(
      '  ~> agent/triage (adopt: take over the live resource)\n      # exists live but is not declared in main (abc123): this change takes it over',
    );
    expect(text).toContain('~ model.model: "gpt-4o-mini" → "gpt-4o"');
    expect(text).not.toContain('agent/support (');
    expect(summaryLine(plan)).toBe('Plan: 0 to add, 0 to change, 1 to adopt, 0 to replace, 0 to destroy.');
    expect(summaryLine(samplePlan())).not.toContain('adopt');
  });

  it('Markdown: an Adopt column only when something is adopted', () => {
    const markdown = renderPlanMarkdown(adoptingPlan());
    expect(markdown).toContain('| Add | Change | Adopt | Replace | Destroy | Unmanaged |\n|---:|---:|---:|---:|---:|---:|\n| 0 | 0 | 1 | 0 | 0 | 0 |');
    expect(markdown).toContain('📥 `agent/triage` adopt');
    expect(renderPlanMarkdown(samplePlan())).toContain('| Add | Change | Replace | Destroy | Unmanaged |');
  });

  it('JSON: the action, the count and the base', () => {
    const json = JSON.parse(renderPlanJson({ ...adoptingPlan(), adoptionBase: 'main (abc123)' }));
    expect(json.summary.adopt).toBe(1);
    expect(json.adoptionBase).toBe('main (abc123)');
    expect(json.changes.find((change: { address: string }) => change.address === 'agent/triage').action).toBe('adopt');
    expect(JSON.parse(renderPlanJson(samplePlan())).adoptionBase).toBeUndefined();
  });

  it('--all-envs: an ADOPT column only when an environment adopts', () => {
    const outcomes: EnvironmentOutcome[] = [
      { environment: 'dev', plan: samplePlan() },
      { environment: 'prod', plan: adoptingPlan() },
    ];
    const table = renderAllEnvironmentsSummary(outcomes);
    expect(table.split('\n')[1]).toMatch(/^ENVIRONMENT\s+ADD\s+CHANGE\s+ADOPT\s+REPLACE/);
    expect(table.split('\n').find((line) => line.startsWith('prod'))).toMatch(/^prod\s+0\s+0\s+1\s+0\s+0/);
    expect(renderAllEnvironmentsSummary(outcomes.slice(0, 1))).not.toContain('ADOPT');
  });
});
