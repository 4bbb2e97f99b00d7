import { describe, expect, it } from 'vitest';
import type { AgentVersionWithSlug } from '../../src/model/api.js';
import type { ActualState, DesiredResource, DesiredState, JsonObject } from '../../src/model/resources.js';
import { resolvePromotions, type SourceReader } from '../../src/promotion/resolve.js';

const staging: Record<string, AgentVersionWithSlug[]> = {
  researcher: [1, 2, 3].map((version) => ({
    slug: 'researcher',
    agentId: 'agt_r',
    version,
    definition: { name: 'researcher', system: `r${version}` } as never,
  })),
  support: [
    { slug: 'support', agentId: 'agt_s', version: 1, definition: { name: 'support', system: 's1', model: { provider: 'openai', model: 'gpt-4o' } } as never },
    {
      slug: 'support',
      agentId: 'agt_s',
      version: 2,
      definition: {
        name: 'support',
        system: 's2',
        model: { provider: 'openai', model: 'gpt-4o' },
        subagents: [{ kind: 'agent', name: 'r', description: 'd', agent: 'researcher', version: 3 }],
      } as never,
    },
  ],
};

function reader(calls: string[] = []): SourceReader {
  return {
    environmentId: async (environment) => `env_${environment}`,
    agent: async (environment, slug, version) => {
      calls.push(`${environment}:${slug}:${version ?? 'latest'}`);
      const versions = staging[slug] ?? [];
      const found = version === undefined ? versions.at(-1) : versions.find((item) => item.version === version);
      if (!found) throw new Error(`no ${slug} v${version}`);
      return found;
    },
  };
}

function agent(name: string, spec: JsonObject, promotion?: { fromEnvironment: string; version: number }): DesiredResource {
  return { kind: 'agent', name, spec, writeOnly: {}, references: [], ...(promotion ? { promotion } : {}) };
}

function desired(resources: DesiredResource[]): DesiredState {
  return { projectDir: '/p', target: { name: 'production', slug: 'production', url: 'local', prune: false }, resources };
}

function remoteAgent(
  slug: string,
  version: number,
  definition: JsonObject,
  promotedFrom?: AgentVersionWithSlug['promotedFrom'],
): ActualState['resources'][number] {
  return {
    kind: 'agent',
    name: slug,
    id: `prod_${slug}`,
    spec: definition,
    fingerprint: 'f',
    remote: { slug, agentId: `prod_${slug}`, version, definition, ...(promotedFrom ? { promotedFrom } : {}) } as never,
  };
}

const documents = [{ kind: 'Agent', name: 'support', overlays: { production: { model: { model: 'gpt-4o-mini' } } } }] as never;

describe('resolvePromotions', () => {
  it('leaves a project without promotions alone and reads nothing', async () => {
    const calls: string[] = [];
    const state = desired([agent('support', { system: 'x' })]);
    const result = await resolvePromotions({ documents }, state, { environmentSlug: 'production', resources: [], missingOperations: [] }, reader(calls));
    expect(result.desired).toBe(state);
    expect(calls).toEqual([]);
  });

  it('uses the source definition, keeps overlay fields, records promotedFrom', async () => {
    const state = desired([
      agent(
        'support',
        { name: 'support', system: 'configured', model: { provider: 'openai', model: 'gpt-4o-mini' } },
        { fromEnvironment: 'staging', version: 1 },
      ),
    ]);
    const result = await resolvePromotions({ documents }, state, { environmentSlug: 'production', resources: [], missingOperations: [] }, reader());
    const resolved = result.desired.resources[0]!;
    expect(resolved.spec).toEqual({ name: 'support', system: 's1', model: { provider: 'openai', model: 'gpt-4o-mini' } });
    expect(resolved.options?.promotedFrom).toEqual({ environmentId: 'env_staging', agentId: 'agt_s', version: 1 });
    expect(result.promotions[0]).toMatchObject({ outcome: 'promote', targetVersion: 1, kept: [{ path: 'model.model', value: 'gpt-4o-mini' }] });
  });

  it('is a no-op when the latest target version came from that source version and matches', async () => {
    const definition = { name: 'support', system: 's1', model: { provider: 'openai', model: 'gpt-4o-mini' } };
    const actual: ActualState = {
      environmentSlug: 'production',
      resources: [remoteAgent('support', 4, definition, { environmentId: 'env_staging', agentId: 'agt_s', version: 1 })],
      missingOperations: [],
    };
    const result = await resolvePromotions(
      { documents },
      desired([agent('support', { model: { model: 'gpt-4o-mini' } }, { fromEnvironment: 'staging', version: 1 })]),
      actual,
      reader(),
    );
    expect(result.promotions[0]).toMatchObject({ outcome: 'no-op', targetVersion: 4 });
    expect(result.warnings).toEqual([]);
  });

  it('fails clearly when a pinned subagent is not in the target at that version', async () => {
    const actual: ActualState = {
      environmentSlug: 'production',
      resources: [remoteAgent('researcher', 1, { system: 'r2' }, { environmentId: 'env_staging', agentId: 'agt_r', version: 2 })],
      missingOperations: [],
    };
    await expect(
      resolvePromotions({ documents }, desired([agent('support', {}, { fromEnvironment: 'staging', version: 2 })]), actual, reader()),
    ).rejects.toThrow(/staging v2 pins subagent researcher v3, which is not in production: its latest researcher is v1 \(promoted from version 2\)/);
  });

  it('names the target version of a pinned subagent promoted in the same plan, and depends on it and on what its definition names', async () => {
    const actual: ActualState = {
      environmentSlug: 'production',
      resources: [remoteAgent('researcher', 1, { system: 'r2' }, { environmentId: 'env_staging', agentId: 'agt_r', version: 2 })],
      missingOperations: [],
    };
    const state = desired([
      agent('support', {}, { fromEnvironment: 'staging', version: 2 }),
      agent('researcher', {}, { fromEnvironment: 'staging', version: 3 }),
    ]);
    const result = await resolvePromotions({ documents }, state, actual, reader());
    const support = result.desired.resources[0]!;
    expect((support.spec.subagents as JsonObject[])[0]).toMatchObject({ agent: 'researcher', version: 2 });
    expect(support.references).toContainEqual({ kind: 'agent', name: 'researcher', path: 'subagents[0].agent' });
    // The provider comes from the source definition, not the configuration: still an edge, so it is applied first.
    expect(support.references).toContainEqual({ kind: 'provider', name: 'openai', path: 'model.provider' });
  });

  it('accepts a pinned subagent whose latest target version came from that source version', async () => {
    const actual: ActualState = {
      environmentSlug: 'production',
      resources: [remoteAgent('researcher', 5, { system: 'r3' }, { environmentId: 'env_staging', agentId: 'agt_r', version: 3 })],
      missingOperations: [],
    };
    const result = await resolvePromotions({ documents }, desired([agent('support', {}, { fromEnvironment: 'staging', version: 2 })]), actual, reader());
    expect((result.desired.resources[0]!.spec.subagents as JsonObject[])[0]).toMatchObject({ version: 5 });
  });
});
