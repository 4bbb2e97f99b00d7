import { describe, expect, it } from 'vitest';
import { computePlan } from '../../src/engine/plan.js';
import { planTextLines, renderPlanText } from '../../src/render/text.js';
import { actual, actualState, desired, desiredState } from '../engine/builders.js';
import { pruningPlan, samplePlan } from './fixtures.js';

describe('renderPlanText', () => {
  it('renders every action, nested fields, prompt diffs and write-only values', () => {
    expect(renderPlanText(samplePlan())).toBe(
      [
        'Changes to environment staging:',
        '',
        '  + provider/openai (create)',
        '      + type: "openai"',
        '      + secret: (write-only)',
        '',
        '  ~ agent/support (update in place)',
        '      ~ model.model: "gpt-4o-mini" → "gpt-4o"',
        '      ~ system:',
        '          @@ -1,3 +1,3 @@',
        '           You are support.',
        '          -Be nice.',
        '          +Be kind.',
        '           Answer briefly.',
        '      ~ model.reasoning: "high" → (server default)',
        '',
        '  -/+ apiKey/ci (replace)',
        '      # scopes cannot be updated in place',
        '      ~ scopes: ["read"] → ["read","control"] (forces replacement)',
        '',
        'Note: 2 resources exist in the environment but not in the configuration (left alone; --prune deletes them):',
        '  ? secret/old-token',
        '  ? connection/legacy',
        '',
        'Kept, not in the configuration (apply leaves these remote values as they are; set them in the configuration to manage them):',
        '  = agent/triage: policies.toolCalls.byTool = {"shell":"allow"}',
        '',
        'Plan: 1 to add, 1 to change, 1 to replace, 0 to destroy.',
      ].join('\n'),
    );
  });

  it('renders deletes', () => {
    expect(renderPlanText(pruningPlan())).toBe(
      ['Changes to environment staging:', '', '  - secret/gone (destroy)', '', 'Plan: 0 to add, 0 to change, 0 to replace, 1 to destroy.'].join('\n'),
    );
  });

  it('says when nothing changes, and shows warnings', () => {
    const plan = computePlan(
      desiredState([desired('secret', 's')]),
      actualState([actual('secret', 's')], [{ rpc: 'agents.list', consequence: 'agents cannot be planned' }]),
      { prune: false },
    );
    expect(renderPlanText(plan)).toBe(
      ['Warning: the server does not offer agents.list: agents cannot be planned', '', 'No changes. Remote state matches the configuration.'].join('\n'),
    );
  });

  it('never prints a write-only value', () => {
    expect(renderPlanText(samplePlan())).not.toContain('SENTINEL');
  });

  it('colours only when asked', () => {
    expect(renderPlanText(samplePlan(), { color: true })).toContain('\u001b[');
    expect(renderPlanText(samplePlan(), { color: false })).not.toContain('\u001b[');
  });
});

describe('planTextLines: renderPlanText in batches (apply prints them while its first writes are on the wire)', () => {
  const noChanges = computePlan(desiredState([desired('secret', 'same')]), actualState([actual('secret', 'same')]), { prune: false });
  const manyCreates = computePlan(desiredState(Array.from({ length: 23 }, (_, index) => desired('secret', `s-${index}`))), actualState([]), { prune: false });
  const plans = { sample: samplePlan(), pruning: pruningPlan(), 'no changes': noChanges, '23 creates': manyCreates };
  for (const [name, plan] of Object.entries(plans)) {
    for (const size of [1, 2, 5, 23, 100, Infinity]) {
      for (const color of [false, true]) {
        it(`${name}, ${size} a batch, ${color ? 'colour' : 'plain'}: the batches joined are the text`, () => {
          const batches = [...planTextLines(plan, { color }, size)];
          expect(batches.every((batch) => batch.length > 0)).toBe(true);
          expect(batches.map((batch) => batch.join('\n')).join('\n')).toBe(renderPlanText(plan, { color }));
        });
      }
    }
  }

  it('batches hold `changesPerBatch` changes each (the summary rides with the last)', () => {
    const batches = [...planTextLines(manyCreates, {}, 10)];
    expect(batches).toHaveLength(3);
    expect(batches.map((batch) => batch.filter((line) => line.startsWith('  + ')).length)).toEqual([10, 10, 3]);
    expect(batches.at(-1)?.at(-1)).toBe('Plan: 23 to add, 0 to change, 0 to replace, 0 to destroy.');
  });
});
