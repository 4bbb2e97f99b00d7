import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/model/resources.js';
import { keptPathsFor, overlayLeafPaths } from '../../src/promotion/kept-fields.js';
import { mergePromoted, withoutNullFields } from '../../src/promotion/merge.js';
import { promotionOutcome, samePromotedFrom } from '../../src/promotion/provenance.js';
import { subagentNeeds, withSubagentVersions } from '../../src/promotion/subagents.js';

const source: JsonObject = {
  name: 'support',
  model: { provider: 'openai', model: 'gpt-4o', fallback: { models: [{ provider: 'anthropic', model: 'claude' }] } },
  system: 'v7 prompt',
  limits: { maxTurns: 30, maxInputTokensPerSession: 1000 },
};

describe('overlayLeafPaths', () => {
  it.each([
    [{}, []],
    [{ limits: { maxTurns: 10 } }, [['limits', 'maxTurns']]],
    [
      { model: { model: 'x', fallback: null } },
      [
        ['model', 'model'],
        ['model', 'fallback'],
      ],
    ],
    [{ tools: [{ type: 'builtin' }] }, [['tools']]],
    [{ model: {} }, []],
  ] as Array<[JsonObject, string[][]]>)('%j → %j', (overlay, paths) => {
    expect(overlayLeafPaths(overlay)).toEqual(paths);
  });

  it('reads the overlay of the named Agent document for the environment only', () => {
    const documents = [
      { kind: 'Agent', name: 'support', overlays: { production: { limits: { maxTurns: 10 } }, dev: { system: 'x' } } },
      { kind: 'Provider', name: 'support', overlays: { production: { baseUrl: 'x' } } },
    ] as unknown as Parameters<typeof keptPathsFor>[0]['documents'];
    expect(keptPathsFor({ documents }, 'support', 'production')).toEqual([['limits', 'maxTurns']]);
    expect(keptPathsFor({ documents }, 'support', 'staging')).toEqual([]);
    expect(keptPathsFor({ documents }, 'other', 'production')).toEqual([]);
  });
});

describe('mergePromoted', () => {
  it('takes the source definition and keeps only the target-overlaid fields', () => {
    const target: JsonObject = { name: 'support', model: { provider: 'openai', model: 'gpt-4o-mini' }, system: 'old prompt', limits: { maxTurns: 10 } };
    const merged = mergePromoted(source, target, [
      ['model', 'model'],
      ['limits', 'maxTurns'],
    ]);
    expect(merged.definition).toEqual({
      name: 'support',
      model: { provider: 'openai', model: 'gpt-4o-mini', fallback: { models: [{ provider: 'anthropic', model: 'claude' }] } },
      system: 'v7 prompt',
      limits: { maxTurns: 10, maxInputTokensPerSession: 1000 },
    });
    expect(merged.kept).toEqual([
      { path: 'model.model', value: 'gpt-4o-mini', sourceValue: 'gpt-4o' },
      { path: 'limits.maxTurns', value: 10, sourceValue: 30 },
    ]);
  });

  it('keeps a null (reset) and creates missing parents; a path the target lacks keeps nothing', () => {
    const merged = mergePromoted(source, { model: { fallback: null }, spend: { dailyUsd: 5 } }, [
      ['model', 'fallback'],
      ['spend', 'dailyUsd'],
      ['limits', 'maxTurns'],
    ]);
    expect((merged.definition.model as JsonObject).fallback).toBeNull();
    expect(merged.definition.spend).toEqual({ dailyUsd: 5 });
    expect((merged.definition.limits as JsonObject).maxTurns).toBe(30);
    expect(merged.kept.map((field) => field.path)).toEqual(['model.fallback', 'spend.dailyUsd']);
    expect(withoutNullFields(merged.definition).model).toEqual({ provider: 'openai', model: 'gpt-4o' });
  });

  it('never mutates the source', () => {
    const copy = structuredClone(source);
    mergePromoted(source, { limits: { maxTurns: 1 } }, [['limits', 'maxTurns']]);
    expect(source).toEqual(copy);
  });
});

describe('no-op rule', () => {
  const from = { environmentId: 'env_s', agentId: 'agt_1', version: 7 };
  it.each([
    ['missing target', undefined, false, 'promote'],
    ['same provenance, same definition', { promotedFrom: { ...from } }, false, 'no-op'],
    ['same provenance, definition differs', { promotedFrom: { ...from } }, true, 'promote'],
    ['other source version', { promotedFrom: { ...from, version: 6 } }, false, 'matches-without-provenance'],
    ['other environment', { promotedFrom: { ...from, environmentId: 'env_x' } }, true, 'promote'],
    ['never promoted', { promotedFrom: null }, false, 'matches-without-provenance'],
  ] as const)('%s → %s', (_, latest, differs, outcome) => {
    expect(promotionOutcome(latest, from, differs)).toBe(outcome);
  });
  it('samePromotedFrom needs all three fields', () => {
    expect(samePromotedFrom(from, { ...from })).toBe(true);
    expect(samePromotedFrom(from, { ...from, agentId: 'agt_2' })).toBe(false);
    expect(samePromotedFrom(undefined, from)).toBe(false);
  });
});

describe('subagents', () => {
  const definition: JsonObject = {
    subagents: [
      { kind: 'agent', name: 'a', description: 'd', agent: 'researcher', version: 3 },
      { kind: 'agent', name: 'b', description: 'd', agent: 'writer' },
      'junk',
    ],
  };
  it('lists the agents named, with pinned versions', () => {
    expect(subagentNeeds(definition)).toEqual([
      { index: 0, agent: 'researcher', version: 3 },
      { index: 1, agent: 'writer' },
    ]);
    expect(subagentNeeds({})).toEqual([]);
  });
  it('rewrites pinned versions to the target numbering', () => {
    const rewritten = withSubagentVersions(definition, new Map([[0, 1]]));
    expect((rewritten.subagents as JsonObject[])[0]).toMatchObject({ agent: 'researcher', version: 1 });
    expect((definition.subagents as JsonObject[])[0]).toMatchObject({ version: 3 });
  });
});
