import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { PlanScope } from '../../src/model/resources.js';
import { renderPlanJson } from '../../src/render/json.js';
import { renderPlanMarkdown } from '../../src/render/markdown.js';
import { scopeLines } from '../../src/render/scope.js';
import { renderPlanText } from '../../src/render/text.js';
import { samplePlan } from './fixtures.js';

const SCOPE: PlanScope = {
  excludes: ['agent/team-b-*'],
  owns: ['agent/team-a-*'],
  notOwned: 3,
  setAside: [
    { address: 'agent/legacy', as: 'forgotten', reason: 'forget: agent/legacy (agentform.yaml:4:5): handed over' },
    { address: 'agent/team-b-bot', as: 'excluded', reason: '--exclude agent/team-b-*' },
  ],
};

describe('scopeLines', () => {
  const cases: Array<[name: string, scope: PlanScope | undefined, lines: string[]]> = [
    ['no scope', undefined, []],
    ['owns alone, nothing outside', { excludes: [], owns: ['agent/a-*'], notOwned: 0, setAside: [] }, ['Owns: agent/a-*']],
    [
      'one live resource outside owns',
      { excludes: [], owns: ['agent/a-*'], notOwned: 1, setAside: [] },
      ['Owns: agent/a-*; 1 live resource outside it left out'],
    ],
    [
      'everything',
      SCOPE,
      [
        'Excluding (--exclude): agent/team-b-*',
        'Owns: agent/team-a-*; 3 live resources outside it left out',
        'Forgotten (kept live, no longer managed: never created, changed or deleted):',
        '  ~ agent/legacy (forget: agent/legacy (agentform.yaml:4:5): handed over)',
        'Excluded (left as they are):',
        '  ! agent/team-b-bot (--exclude agent/team-b-*)',
      ],
    ],
  ];
  it.each(cases)('%s', (_, scope, lines) => {
    expect(scopeLines(scope)).toEqual(lines);
  });
});

describe('a plan with a scope', () => {
  const plan = { ...samplePlan(), scope: SCOPE };

  it('opens the text and Markdown renderings with it', () => {
    expect(renderPlanText(plan).split('\n')[0]).toBe('Excluding (--exclude): agent/team-b-*');
    expect(renderPlanMarkdown(plan)).toContain('  ~ agent/legacy (forget: agent/legacy (agentform.yaml:4:5): handed over)');
  });

  it('carries it in JSON, valid against schemas/plan.schema.json', () => {
    const schema = JSON.parse(readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'));
    const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
    const document = JSON.parse(renderPlanJson(plan));
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    expect(document.scope).toEqual(SCOPE);
  });
});
