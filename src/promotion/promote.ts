// The promote command's planner and writer (agentform promote AGENT --from A --to B): the source
// version's definition, with the fields the target's overlay sets kept, becomes a new version in B
// with promotedFrom. With `withSubagents`, pinned subagents that B lacks are promoted first, in the
// same run. Reading and writing go through ports: this module makes no calls of its own and is
// tested without a server (test/promotion/promote.test.ts).
import { UserError } from '../errors.js';
import type { AgentVersionWithSlug, PromotedFrom } from '../model/api.js';
import type { DesiredState, JsonObject, Plan } from '../model/resources.js';
import type { Project } from '../config/index.js';
import type { IgnoreRule } from '../engine/ignore.js';
import { agentPlan, hasChanges, keepIgnoredOfAgent } from './agent-plan.js';
import type { JudgedDefinition } from './judged-definition.js';
import { type KeptField, withoutNullFields } from './merge.js';
import { promotionOutcome, samePromotedFrom, type PromotionOutcome } from './provenance.js';
import { neededProvenance, readPromotedSource, targetHas, type SourceReader } from './source.js';
import { subagentNeeds, withSubagentVersions } from './subagents.js';

/** The target environment, read side: its latest version of an agent, or undefined when it has none. */
export interface TargetReader {
  latest(slug: string): Promise<AgentVersionWithSlug | undefined>;
}

/** The target environment, write side: `agents.upsert`, answering the version it made (src/apply/agent-writer.ts). */
export interface AgentWriter {
  upsert(slug: string, definition: JsonObject, promotedFrom?: PromotedFrom): Promise<{ version: number }>;
}

export interface PromoteRequest {
  project: Pick<Project, 'documents'>;
  /** The target environment's desired state (its overlay decides the kept fields). */
  desired: DesiredState;
  agent: string;
  /** The source version; undefined: its latest. */
  version?: number;
  from: string;
  to: string;
  withSubagents: boolean;
  /** The project's ignore rules: fields the target keeps whatever the source says. */
  ignore?: readonly IgnoreRule[];
}

export interface PromotionStep {
  slug: string;
  from: PromotedFrom;
  definition: JsonObject;
  /** What the target's rules judge of `definition` (judged-definition.ts). */
  judged: JudgedDefinition;
  /** Pinned subagents (by index) whose target version is only known once an earlier step has run. */
  pinnedToStep: Map<number, string>;
  latest: AgentVersionWithSlug | undefined;
  outcome: PromotionOutcome;
  kept: KeptField[];
  plan: Plan;
}

/** Every step of the promotion, subagents before the agents that pin them. Reads only. */
export async function planPromotion(request: PromoteRequest, sources: SourceReader, target: TargetReader): Promise<PromotionStep[]> {
  const { project, desired, from, to } = request;
  const sourceEnvironmentId = await sources.environmentId(from);
  const steps = new Map<string, PromotionStep>();
  const planning = new Set<string>();

  const planStep = async (slug: string, sourceVersion: number | undefined): Promise<PromotionStep> => {
    const planned = steps.get(slug);
    if (planned) {
      if (sourceVersion !== undefined && planned.from.version !== sourceVersion) {
        throw new UserError(`${slug} is needed at ${from} v${sourceVersion} and v${planned.from.version} in one promotion`);
      }
      return planned;
    }
    if (planning.has(slug)) throw new UserError(`the subagents of ${slug} form a cycle`);
    planning.add(slug);
    const targetSpec = desired.resources.find((resource) => resource.kind === 'agent' && resource.name === slug)?.spec ?? {};
    const {
      source,
      from: fromRef,
      merged,
      judge,
    } = await readPromotedSource(sources, project, {
      fromEnvironment: from,
      environmentId: sourceEnvironmentId,
      slug,
      version: sourceVersion,
      targetEnvironment: to,
      targetSpec,
    });
    const pinnedVersions = new Map<number, number>();
    const pinnedToStep = new Map<number, string>();
    for (const need of subagentNeeds(merged.definition)) {
      const present = await target.latest(need.agent);
      if (need.version === undefined) {
        if (present) continue;
        if (!request.withSubagents) throw missingSubagent(slug, source.version, need.agent, undefined, present);
        await planStep(need.agent, undefined);
        continue;
      }
      const needed = await neededProvenance(sources, from, sourceEnvironmentId, { ...need, version: need.version });
      if (present && samePromotedFrom(present.promotedFrom, needed)) {
        pinnedVersions.set(need.index, present.version);
      } else if (request.withSubagents) {
        const step = await planStep(need.agent, need.version);
        if (step.outcome === 'promote') pinnedToStep.set(need.index, need.agent);
        else pinnedVersions.set(need.index, step.latest?.version ?? 0);
      } else {
        throw missingSubagent(slug, source.version, need.agent, need.version, present);
      }
    }
    const latest = await target.latest(slug);
    const { definition, ignored } = keepIgnoredOfAgent(slug, withSubagentVersions(merged.definition, pinnedVersions), latest, request.ignore ?? []);
    // The plan shows predicted versions for subagents promoted in this run.
    const predicted = new Map([...pinnedToStep].map(([index, name]) => [index, (steps.get(name)?.latest?.version ?? 0) + 1]));
    const plan = agentPlan({
      target: desired.target,
      slug,
      definition: withSubagentVersions(definition, predicted),
      latest,
      promotion: { fromEnvironment: from, version: source.version },
      ignored,
    });
    const step: PromotionStep = {
      slug,
      from: fromRef,
      definition,
      judged: judge(definition),
      pinnedToStep,
      latest,
      outcome: promotionOutcome(latest, fromRef, hasChanges(plan)),
      kept: merged.kept,
      plan,
    };
    planning.delete(slug);
    steps.set(slug, step);
    return step;
  };

  await planStep(request.agent, request.version);
  return [...steps.values()];
}

/** Writes the steps that promote, in order; each pinned subagent names the version an earlier step made. */
export async function writePromotion(
  steps: readonly PromotionStep[],
  writer: AgentWriter,
  onWritten: (step: PromotionStep, version: number) => void = () => undefined,
): Promise<Map<string, number>> {
  const written = new Map<string, number>();
  for (const step of steps) {
    if (step.outcome !== 'promote') continue;
    const definition = withSubagentVersions(step.definition, new Map([...step.pinnedToStep].map(([index, name]) => [index, written.get(name) ?? 0])));
    const result = await writer.upsert(step.slug, withoutNullFields({ name: step.slug, ...definition }), step.from);
    written.set(step.slug, result.version);
    onWritten(step, result.version);
  }
  return written;
}

function missingSubagent(slug: string, version: number, subagent: string, needed: number | undefined, present: AgentVersionWithSlug | undefined): UserError {
  return new UserError(
    `${slug} v${version} needs subagent ${subagent}${needed !== undefined ? ` at source version ${needed}` : ''}, which the target does not have: ${targetHas(subagent, present)}`,
    `promote ${subagent} first, or pass --with-subagents to promote it in the same run`,
  );
}
