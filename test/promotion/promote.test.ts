// The promote command's planner and writer behind reader/writer ports: no server.
import { describe, expect, it } from 'vitest';
import type { AgentVersionWithSlug, PromotedFrom } from '../../src/model/api.js';
import type { DesiredState, JsonObject } from '../../src/model/resources.js';
import { planPromotion, writePromotion, type AgentWriter, type TargetReader } from '../../src/promotion/promote.js';
import type { SourceReader } from '../../src/promotion/resolve.js';

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
      definition: { name: 'support', system: 's2', subagents: [{ kind: 'agent', name: 'r', description: 'd', agent: 'researcher', version: 3 }] } as never,
    },
    {
      slug: 'support',
      agentId: 'agt_s',
      version: 3,
      definition: { name: 'support', system: 's3', subagents: [{ kind: 'agent', name: 'r', description: 'd', agent: 'researcher' }] } as never,
    },
  ],
};

const sources: SourceReader = {
  environmentId: async (environment) => `env_${environment}`,
  agent: async (_environment, slug, version) => {
    const versions = staging[slug] ?? [];
    const found = version === undefined ? versions.at(-1) : versions.find((item) => item.version === version);
    if (!found) throw new Error(`no ${slug} v${version}`);
    return found;
  },
};

function target(agents: Record<string, { version: number; definition: JsonObject; promotedFrom?: PromotedFrom }>): TargetReader {
  return { latest: async (slug) => (agents[slug] ? ({ slug, agentId: `prod_${slug}`, ...agents[slug] } as unknown as AgentVersionWithSlug) : undefined) };
}

const documents = [{ kind: 'Agent', name: 'support', overlays: { production: { model: { model: 'gpt-4o-mini' } } } }] as never;
const desired: DesiredState = {
  projectDir: '/p',
  target: { name: 'production', slug: 'production', url: 'local', prune: false },
  resources: [{ kind: 'agent', name: 'support', spec: { model: { provider: 'openai', model: 'gpt-4o-mini' } }, writeOnly: {}, references: [] }],
};
const request = { project: { documents }, desired, agent: 'support', from: 'staging', to: 'production', withSubagents: false };

describe('planPromotion', () => {
  it('plans the source definition with the kept overlay fields and its provenance', async () => {
    const [step, ...rest] = await planPromotion({ ...request, version: 1 }, sources, target({}));
    expect(rest).toEqual([]);
    expect(step).toMatchObject({
      slug: 'support',
      outcome: 'promote',
      from: { environmentId: 'env_staging', agentId: 'agt_s', version: 1 },
      kept: [{ path: 'model.model', value: 'gpt-4o-mini' }],
    });
    expect(step!.definition).toEqual({ name: 'support', system: 's1', model: { provider: 'openai', model: 'gpt-4o-mini' } });
    expect(step!.plan.summary.add).toBe(1);
  });

  it('is a no-op when the target latest came from that source version and matches', async () => {
    const from = { environmentId: 'env_staging', agentId: 'agt_s', version: 1 };
    const [step] = await planPromotion(
      { ...request, version: 1 },
      sources,
      target({
        support: { version: 4, definition: { name: 'support', system: 's1', model: { provider: 'openai', model: 'gpt-4o-mini' } }, promotedFrom: from },
      }),
    );
    expect(step!.outcome).toBe('no-op');
  });

  it('refuses a pinned subagent the target lacks, naming what it has', async () => {
    await expect(
      planPromotion(
        { ...request, version: 2 },
        sources,
        target({ researcher: { version: 1, definition: {}, promotedFrom: { environmentId: 'env_staging', agentId: 'agt_r', version: 2 } } }),
      ),
    ).rejects.toThrow(
      /support v2 needs subagent researcher at source version 3, which the target does not have: its latest researcher is v1 \(promoted from version 2\)/,
    );
  });

  it('pins the target version of a subagent already promoted from the needed source version', async () => {
    const [step] = await planPromotion(
      { ...request, version: 2 },
      sources,
      target({ researcher: { version: 7, definition: {}, promotedFrom: { environmentId: 'env_staging', agentId: 'agt_r', version: 3 } } }),
    );
    expect((step!.definition.subagents as JsonObject[])[0]).toMatchObject({ agent: 'researcher', version: 7 });
  });

  it('with subagents: promotes the subagent first, predicting its version in the plan', async () => {
    const steps = await planPromotion(
      { ...request, version: 2, withSubagents: true },
      sources,
      target({ researcher: { version: 1, definition: { system: 'old' } } }),
    );
    expect(steps.map((step) => step.slug)).toEqual(['researcher', 'support']);
    expect(steps[1]!.pinnedToStep).toEqual(new Map([[0, 'researcher']]));
    expect(JSON.stringify(steps[1]!.plan.changes[0])).toContain('"version":2');
  });

  it('an unpinned subagent the target lacks is an error without --with-subagents', async () => {
    await expect(planPromotion({ ...request, version: 3 }, sources, target({}))).rejects.toThrow(
      /needs subagent researcher, which the target does not have: it has no researcher/,
    );
  });
});

describe('writePromotion', () => {
  it('writes only promoting steps, in order, with the versions earlier steps made', async () => {
    const steps = await planPromotion(
      { ...request, version: 2, withSubagents: true },
      sources,
      target({ researcher: { version: 1, definition: { system: 'old' } } }),
    );
    const calls: Array<{ slug: string; definition: JsonObject; promotedFrom?: PromotedFrom }> = [];
    let next = 10;
    const writer: AgentWriter = {
      upsert: async (slug, definition, promotedFrom) => {
        calls.push({ slug, definition, ...(promotedFrom ? { promotedFrom } : {}) });
        return { version: next++ };
      },
    };
    const seen: string[] = [];
    const written = await writePromotion(steps, writer, (step, version) => seen.push(`${step.slug} v${version}`));
    expect(seen).toEqual(['researcher v10', 'support v11']);
    expect(written).toEqual(
      new Map([
        ['researcher', 10],
        ['support', 11],
      ]),
    );
    expect((calls[1]!.definition.subagents as JsonObject[])[0]).toMatchObject({ agent: 'researcher', version: 10 });
    expect(calls[1]!.promotedFrom).toEqual({ environmentId: 'env_staging', agentId: 'agt_s', version: 2 });
  });

  it('writes nothing for no-op steps', async () => {
    const from = { environmentId: 'env_staging', agentId: 'agt_s', version: 1 };
    const steps = await planPromotion(
      { ...request, version: 1 },
      sources,
      target({
        support: { version: 4, definition: { name: 'support', system: 's1', model: { provider: 'openai', model: 'gpt-4o-mini' } }, promotedFrom: from },
      }),
    );
    const writer: AgentWriter = { upsert: async () => expect.fail('no write expected') };
    expect(await writePromotion(steps, writer)).toEqual(new Map());
  });
});
