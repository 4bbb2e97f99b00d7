// Declarative promotion: turns each desired agent that says `promote: {from, version}` into the
// source version's definition (target-kept fields aside) with `options.promotedFrom`, so that the
// engine diffs it like any other agent. Reading the source is injected (`SourceReader`): this module
// makes no calls of its own and is tested without a server.
import { diffSpec } from '../engine/diff.js';
import { PlanError } from '../engine/errors.js';
import { agentDefinitionReferences } from '../engine/references.js';
import { formatJsonPath } from '../config/problems.js';
import { rulesFor } from '../engine/rules.js';
import type { AgentVersionWithSlug, PromotedFrom } from '../model/api.js';
import type { ActualState, DesiredResource, DesiredState, JsonObject } from '../model/resources.js';
import type { Project } from '../config/index.js';
import type { KeptField } from './merge.js';
import { promotionOutcome, samePromotedFrom, type PromotionOutcome } from './provenance.js';
import { neededProvenance, readPromotedSource, targetHas, type SourceReader } from './source.js';
import { subagentNeeds, withSubagentVersions } from './subagents.js';
import { agentVersionOf, jsonOf } from '../model/specs.js';

export type { SourceReader } from './source.js';

export interface ResolvedPromotion {
  name: string;
  from: PromotedFrom;
  fromEnvironment: string;
  outcome: PromotionOutcome;
  kept: KeptField[];
  /** The target version this resolves to once applied (predicted when a new version is made). */
  targetVersion: number;
}

export interface ResolvedPromotions {
  desired: DesiredState;
  promotions: ResolvedPromotion[];
  warnings: string[];
}

function latestRemote(actual: ActualState, name: string): (AgentVersionWithSlug & { version: number }) | undefined {
  const found = actual.resources.find((resource) => resource.kind === 'agent' && resource.name === name);
  return found ? agentVersionOf(found) : undefined;
}

export async function resolvePromotions(
  project: Pick<Project, 'documents'>,
  desired: DesiredState,
  actual: ActualState,
  reader: SourceReader,
): Promise<ResolvedPromotions> {
  const desiredAgents = new Map(desired.resources.filter((resource) => resource.kind === 'agent').map((resource) => [resource.name, resource]));
  if (![...desiredAgents.values()].some((resource) => resource.promotion)) return { desired, promotions: [], warnings: [] };
  const resolved = new Map<string, { resource: DesiredResource; promotion: ResolvedPromotion }>();
  const inProgress = new Set<string>();
  const warnings: string[] = [];

  // Depth first: an agent is resolved after the promoted subagents it pins, so it can name their
  // target versions.
  const resolveAgent = async (resource: DesiredResource): Promise<{ resource: DesiredResource; promotion: ResolvedPromotion }> => {
    const done = resolved.get(resource.name);
    if (done) return done;
    if (inProgress.has(resource.name)) throw new PlanError(`agent/${resource.name}: promoted subagents form a cycle`);
    inProgress.add(resource.name);
    const promotion = resource.promotion!;
    const { from, merged, judge } = await readPromotedSource(reader, project, {
      fromEnvironment: promotion.fromEnvironment,
      environmentId: await reader.environmentId(promotion.fromEnvironment),
      slug: resource.name,
      version: promotion.version,
      targetEnvironment: desired.target.name,
      targetSpec: resource.spec,
    });
    const pinned = new Map<number, number>();
    for (const need of subagentNeeds(merged.definition)) {
      const sub = desiredAgents.get(need.agent);
      const remote = latestRemote(actual, need.agent);
      if (need.version === undefined) {
        if (!sub && !remote)
          throw new PlanError(
            `agent/${resource.name}: ${promotion.fromEnvironment} v${promotion.version} has subagent ${need.agent}, which environment ${desired.target.name} neither declares nor runs`,
          );
        continue;
      }
      const needed = await neededProvenance(reader, promotion.fromEnvironment, from.environmentId, { ...need, version: need.version });
      if (sub?.promotion && sub.promotion.fromEnvironment === promotion.fromEnvironment && sub.promotion.version === need.version) {
        pinned.set(need.index, (await resolveAgent(sub)).promotion.targetVersion);
      } else if (remote && samePromotedFrom(remote.promotedFrom, needed)) {
        pinned.set(need.index, remote.version);
      } else {
        const have = targetHas(need.agent, remote);
        throw new PlanError(
          `agent/${resource.name}: ${promotion.fromEnvironment} v${promotion.version} pins subagent ${need.agent} v${need.version}, which is not in ${desired.target.name}: ${have}`,
          `declare ${need.agent} for ${desired.target.name} with promote: {from: ${promotion.fromEnvironment}, version: ${need.version}}, or run agentform promote ${need.agent} --from ${promotion.fromEnvironment} --to ${desired.target.name} --source-version ${need.version}`,
        );
      }
    }
    const spec = withSubagentVersions(merged.definition, pinned);
    const latest = latestRemote(actual, resource.name);
    const differs = !latest || diffSpec(spec, jsonOf(latest.definition ?? {}), rulesFor('agent')).length > 0;
    const outcome = promotionOutcome(latest, from, differs);
    if (outcome === 'matches-without-provenance') {
      warnings.push(
        `agent/${resource.name} already matches ${promotion.fromEnvironment} v${promotion.version}, but its latest version (v${latest?.version}) does not record that provenance; nothing to write`,
      );
    }
    const judged = judge(spec);
    const next: DesiredResource = {
      ...resource,
      spec,
      ...(judged.asConfigured ? { judgedSpec: judged.definition } : {}),
      references: withDefinitionReferences(resource, spec),
      options: { ...(resource.options ?? {}), promotedFrom: { ...from } },
    };
    const result = {
      resource: next,
      promotion: {
        name: resource.name,
        from,
        fromEnvironment: promotion.fromEnvironment,
        outcome,
        kept: merged.kept,
        targetVersion: outcome === 'promote' ? (latest?.version ?? 0) + 1 : (latest?.version ?? 0),
      },
    };
    inProgress.delete(resource.name);
    resolved.set(resource.name, result);
    return result;
  };

  for (const resource of desiredAgents.values()) if (resource.promotion) await resolveAgent(resource);
  const resources = desired.resources.map((resource) => (resource.kind === 'agent' ? (resolved.get(resource.name)?.resource ?? resource) : resource));
  return { desired: { ...desired, resources }, promotions: [...resolved.values()].map((entry) => entry.promotion), warnings };
}

/**
 * The configured references plus every resource the promoted definition names, so that what this
 * environment declares of them is applied first (and is in scope of a targeted apply).
 */
function withDefinitionReferences(resource: DesiredResource, spec: JsonObject): DesiredResource['references'] {
  const references = [...resource.references];
  for (const reference of agentDefinitionReferences(spec)) {
    if (!references.some((known) => known.kind === reference.kind && known.name === reference.name)) {
      references.push({ kind: reference.kind, name: reference.name, path: formatJsonPath(reference.segments) });
    }
  }
  return references;
}
