import { describe, expect, it } from 'vitest';
import { specSchemas } from '../../src/config/schemas.js';
import { compareEnvironments, comparisonSummary, provenanceLines } from '../../src/export/compare.js';
import type { ActualState } from '../../src/model/resources.js';
import { renderPlanText } from '../../src/render/text.js';
import { normalizeAgent, normalizeEnvironment } from '../../src/state/normalize.js';

const definition = (model: string, system = 'Help.') => ({ name: 'Bot', model: { provider: 'openai', model }, system, tools: [], policies: {}, limits: {} });

function state(slug: string, id: string, agents: Array<[string, ReturnType<typeof definition>, number, object?]>): ActualState {
  return {
    environmentSlug: slug,
    missingOperations: [],
    resources: [
      normalizeEnvironment({ id, slug }),
      ...agents.map(([name, def, version, promotedFrom]) =>
        normalizeAgent({
          agentId: `ag_${slug}_${name}`,
          slug: name,
          version,
          definition: def,
          ...(promotedFrom ? { promotedFrom: promotedFrom as never } : {}),
        }),
      ),
    ],
  };
}

describe('compareEnvironments', () => {
  const staging = state('staging', 'env_s', [
    ['support', definition('gpt-4o', 'Help.\nBe kind.'), 5],
    ['same', definition('gpt-4o'), 2],
    ['new', definition('gpt-4o'), 1],
  ]);
  const production = state('production', 'env_p', [
    ['support', definition('gpt-4o-mini', 'Help.'), 2, { environmentId: 'env_s', agentId: 'ag_staging_support', version: 4 }],
    ['same', definition('gpt-4o'), 1, { environmentId: 'env_s', agentId: 'ag_staging_same', version: 2 }],
    ['old', definition('gpt-4o'), 3],
  ]);
  const comparison = compareEnvironments({ name: 'staging', slug: 'staging', actual: staging }, { name: 'production', slug: 'production', actual: production });

  it('shows differing fields as B → A, agents only in one side as create/delete', () => {
    const actions = Object.fromEntries(comparison.plan.changes.map((change) => [change.address, change.action]));
    expect(actions).toEqual({ 'agent/support': 'update', 'agent/same': 'no-op', 'agent/new': 'create', 'agent/old': 'delete' });
    const support = comparison.plan.changes.find((change) => change.address === 'agent/support');
    expect(support?.fields).toContainEqual({ path: 'model.model', before: 'gpt-4o-mini', after: 'gpt-4o' });
    const text = renderPlanText(comparison.plan);
    expect(text).toContain('~ model.model: "gpt-4o-mini" → "gpt-4o"');
    expect(text).toContain('+Be kind.');
    expect(comparisonSummary(comparison, 'staging', 'production')).toBe('Agents: 1 differ, 1 only in staging, 1 only in production.');
  });

  it('says which version each side runs and where it was promoted from, by environment name', () => {
    const lines = provenanceLines(comparison, 'staging', 'production').join('\n');
    expect(lines).toMatch(/agent\/support\s+staging v5 {2}\| {2}production v2 \(promoted from staging v4\)/);
    expect(lines).toContain('not in production');
    expect(lines).toMatch(/agent\/old\s+not in staging/);
  });

  it('with the agent schema, fields it does not know are not compared (a server field new on every read)', () => {
    const stamped = (at: string): ActualState => {
      const withField = { ...definition('gpt-4o'), model: { provider: 'openai', model: 'gpt-4o', resolvedAt: at } };
      return state('x', `env_${at}`, [['same', withField as ReturnType<typeof definition>, 1]]);
    };
    const schema = specSchemas().agent;
    const a = { name: 'a', slug: 'a', actual: stamped('t1') };
    const b = { name: 'b', slug: 'b', actual: stamped('t2') };
    expect(comparisonSummary(compareEnvironments(a, b, new Map(), schema), 'a', 'b')).toBe('No differences: the agents of a and b have the same definitions.');
    // Without the schema every field counts: the guard above is the schema's doing.
    expect(comparisonSummary(compareEnvironments(a, b), 'a', 'b')).toBe('Agents: 1 differ, 0 only in a, 0 only in b.');
  });

  it('equal agents: no differences', () => {
    const same = compareEnvironments({ name: 'a', slug: 'a', actual: staging }, { name: 'b', slug: 'b', actual: staging });
    expect(comparisonSummary(same, 'a', 'b')).toBe('No differences: the agents of a and b have the same definitions.');
  });
});
