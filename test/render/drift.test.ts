// The drift report's renderings: the three groups in order, and nothing from the server or the YAML
// (a reason, a value) can write a terminal control or forge a line.
import { describe, expect, it } from 'vitest';
import type { DriftReport } from '../../src/engine/drift.js';
import { renderDriftJson, renderDriftMarkdown, renderDriftText } from '../../src/render/drift.js';

const report: DriftReport = {
  environment: 'dev',
  changed: [{ address: 'agent/a', kind: 'agent', state: 'changed', fields: [{ path: 'limits.maxTurns', before: 99, after: 10 }] }],
  unmanaged: [{ address: 'agent/stray', kind: 'agent', id: 'agt_1' }],
  ignored: [{ address: 'agent/b', path: 'system', before: 'live\u001b[2J', after: 'yaml', rule: 'agent/b system', reason: 'PM edits\nforged line' }],
  warnings: [],
};

describe('drift renderings', () => {
  it('text: changed, unmanaged, ignored, then the summary', () => {
    const text = renderDriftText(report);
    const order = [
      'Changed outside agentform',
      '~ agent/a',
      'limits.maxTurns: 99 → 10',
      'Unmanaged',
      '? agent/stray',
      'Ignored',
      '~ agent/b: system',
      'Drift in dev: 1 changed outside, 1 unmanaged, 1 ignored.',
    ];
    const positions = order.map((part) => text.indexOf(part));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("markdown: the target line is HTML-escaped like the plan's", () => {
    const markdown = renderDriftMarkdown(report, 'http://x/<img src=x onerror=alert(1)>&');
    expect(markdown).toContain('Target: http://x/&lt;img src=x onerror=alert(1)&gt;&amp;');
    expect(markdown).not.toContain('<img');
  });

  it.each([
    ['text', renderDriftText(report)],
    ['markdown', renderDriftMarkdown(report)],
  ])('%s: controls are made visible, no line is forged', (_format, output) => {
    expect(output).not.toContain('\u001b');
    expect(output.split('\n').some((line) => line.startsWith('forged line'))).toBe(false);
  });

  it('json: the documented shape', () => {
    expect(JSON.parse(renderDriftJson(report, 'local'))).toEqual({
      formatVersion: 1,
      environment: 'dev',
      target: 'local',
      drift: true,
      summary: { changed: 1, unmanaged: 1, ignored: 1 },
      changed: report.changed,
      unmanaged: report.unmanaged,
      ignored: report.ignored,
      warnings: [],
    });
  });

  it('no drift: the summary says so and counts what is ignored', () => {
    expect(renderDriftText({ ...report, changed: [], unmanaged: [] })).toContain(
      'No drift in dev: the live environment matches the configuration (1 ignored).',
    );
  });
});
