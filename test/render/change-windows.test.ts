// plan's report of open change windows in its three formats; the JSON key fits plan.schema.json.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { type ChangeWindow, openWindows } from '../../src/engine/change-windows.js';
import { breakGlassMarkdown } from '../../src/render/change-windows.js';
import { renderPlanAs } from '../../src/render/plan-formats.js';
import { samplePlan } from './fixtures.js';

const schema = JSON.parse(readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'));
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);

const freeze: ChangeWindow = {
  kind: 'dates',
  name: 'year-end',
  reason: 'holiday freeze',
  from: '2026-12-20T00:00:00+01:00',
  until: '2027-01-04T08:00:00+01:00',
  location: { file: 'agentform.yaml', line: 8, col: 9 },
};
const open = openWindows([freeze], new Date('2026-12-24T10:00:00+01:00'));
const context = { target: 'https://api.example.test', color: false, openChangeWindows: open };

describe('open change windows in the plan', () => {
  it('text: an apply now would be refused, the window with its reason, location and end', () => {
    const text = renderPlanAs('text', samplePlan(), context);
    expect(text).toContain(`An apply to ${samplePlan().environment} now would be refused: a change window is open`);
    expect(text).toContain('  "year-end" (holiday freeze, agentform.yaml:8:9) until 2027-01-04T08:00:00+01:00');
  });

  it('Markdown: a banner under the heading', () => {
    const lines = renderPlanAs('markdown', samplePlan(), context).split('\n');
    const banner = lines.findIndex((line) => line.startsWith('> 🚫 **An apply to'));
    expect(banner).toBeGreaterThan(0);
    expect(banner).toBeLessThan(lines.findIndex((line) => line.startsWith('| Add |')));
  });

  it('JSON: openChangeWindows, valid against plan.schema.json', () => {
    const document = JSON.parse(renderPlanAs('json', samplePlan(), context));
    expect(document.openChangeWindows).toEqual([
      { name: 'year-end', reason: 'holiday freeze', endsAt: '2027-01-04T07:00:00.000Z', location: 'agentform.yaml:8:9' },
    ]);
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
  });

  it('says nothing when no window is open', () => {
    const none = { ...context, openChangeWindows: [] };
    expect(renderPlanAs('text', samplePlan(), none)).not.toContain('would be refused');
    expect(JSON.parse(renderPlanAs('json', samplePlan(), none))).not.toHaveProperty('openChangeWindows');
  });

  it('break-glass Markdown: who, why and when; backticks in the reason cannot break the table', () => {
    const markdown = breakGlassMarkdown('apply', 'prod', {
      actor: 'octocat',
      reason: 'fix `x` | now',
      at: '2026-12-24T09:00:00.000Z',
      windows: [{ name: 'year-end', reason: 'holiday freeze', endsAt: '2027-01-04T07:00:00.000Z' }],
    });
    expect(markdown).toContain('| `octocat` |');
    const row = markdown.split('\n').find((line) => line.includes('octocat')) ?? '';
    expect(row.split(/(?<!\\)\|/)).toHaveLength(5);
    expect(markdown).toContain('2026-12-24T09:00:00.000Z |');
    expect(markdown).toContain('year-end (holiday freeze) until 2027-01-04T07:00:00.000Z');
  });
});
