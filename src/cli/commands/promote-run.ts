// agentform promote AGENT --from A --to B [--version N]: the source version's definition, with the
// fields the target's overlay sets kept, upserted into B with promotedFrom. All steps (subagents
// first with --with-subagents) are planned and shown before the single confirmation.
import { resolve } from 'node:path';
import type { ControlApiClient } from '../../api/client.js';
import { desiredStateFor, loadProject, pickEnvironment, type Project } from '../../config/index.js';
import { AbortedError, ApiError, UserError } from '../../errors.js';
import type { AgentDefinition, AgentVersionWithSlug, PromotedFrom } from '../../model/api.js';
import type { JsonObject, Plan } from '../../model/resources.js';
import { formatValue } from '../../render/values.js';
import { renderPlanText } from '../../render/text.js';
import { agentPlan, hasChanges } from '../../promotion/agent-plan.js';
import { keptPathsFor } from '../../promotion/kept-fields.js';
import { type KeptField, mergePromoted, withoutNullFields } from '../../promotion/merge.js';
import { promotionOutcome, samePromotedFrom, type PromotionOutcome } from '../../promotion/provenance.js';
import { subagentNeeds, withSubagentVersions } from '../../promotion/subagents.js';
import type { GlobalOptions } from '../global-options.js';
import { useColor } from '../terminal.js';
import { confirmOrRefuse } from '../prompt.js';
import { connect, runContext } from '../../pipeline/session.js';
import { SourceSessions } from '../../pipeline/sources.js';
import type { PromoteCommandOptions } from './promote.js';

/** agents.get, with "not there" as undefined. */
export async function latestOrNone(client: ControlApiClient, slug: string): Promise<AgentVersionWithSlug | undefined> {
  try {
    return await client.call('agents.get', { slug });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return undefined;
    throw error;
  }
}

interface Step {
  slug: string;
  from: PromotedFrom;
  definition: JsonObject;
  /** Pinned subagents whose target version is only known once an earlier step has run. */
  pinnedToStep: Map<number, string>;
  latest: AgentVersionWithSlug | undefined;
  outcome: PromotionOutcome;
  kept: KeptField[];
  plan: Plan;
}

export async function runPromote(agent: string, options: PromoteCommandOptions, globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const version = options.sourceVersion === undefined ? undefined : Number(options.sourceVersion);
  if (version !== undefined && (!Number.isInteger(version) || version < 1)) throw new UserError(`--source-version must be a whole number ≥ 1, not ${options.sourceVersion}`);
  const project = await loadProject(resolve(options.dir ?? '.'));
  const from = pickEnvironment(project, options.from);
  const to = pickEnvironment(project, options.to);
  if (from === to) throw new UserError(`--from and --to are both ${from}`);
  const desired = desiredStateFor(project, to, env);
  const run = runContext(globals, env);
  const target = await connect(project, desired, run);
  const sources = new SourceSessions(project, run);
  const color = useColor(globals);
  try {
    const sourceEnvironmentId = await sources.environmentId(from);
    const steps = new Map<string, Step>();
    const planning = new Set<string>();

    const planStep = async (slug: string, sourceVersion: number | undefined): Promise<Step> => {
      const planned = steps.get(slug);
      if (planned) {
        if (sourceVersion !== undefined && planned.from.version !== sourceVersion) {
          throw new UserError(`${slug} is needed at ${from} v${sourceVersion} and v${planned.from.version} in one promotion`);
        }
        return planned;
      }
      if (planning.has(slug)) throw new UserError(`the subagents of ${slug} form a cycle`);
      planning.add(slug);
      const source = await sources.agent(from, slug, sourceVersion);
      const fromRef: PromotedFrom = { environmentId: sourceEnvironmentId, agentId: source.agentId, version: source.version };
      const targetSpec = desired.resources.find((resource) => resource.kind === 'agent' && resource.name === slug)?.spec ?? {};
      const merged = mergePromoted(source.definition as unknown as JsonObject, targetSpec, keptPathsFor(project, slug, to));
      const pinnedVersions = new Map<number, number>();
      const pinnedToStep = new Map<number, string>();
      for (const need of subagentNeeds(merged.definition)) {
        const present = await latestOrNone(target.client, need.agent);
        if (need.version === undefined) {
          if (present) continue;
          if (!options.withSubagents) throw missingSubagent(slug, source.version, need.agent, undefined, present);
          await planStep(need.agent, undefined);
          continue;
        }
        const subSource = await sources.agent(from, need.agent, need.version);
        const needed: PromotedFrom = { environmentId: sourceEnvironmentId, agentId: subSource.agentId, version: need.version };
        if (present && samePromotedFrom(present.promotedFrom, needed)) {
          pinnedVersions.set(need.index, present.version);
        } else if (options.withSubagents) {
          const step = await planStep(need.agent, need.version);
          if (step.outcome === 'promote') pinnedToStep.set(need.index, need.agent);
          else pinnedVersions.set(need.index, step.latest?.version ?? 0);
        } else {
          throw missingSubagent(slug, source.version, need.agent, need.version, present);
        }
      }
      const definition = withSubagentVersions(merged.definition, pinnedVersions);
      const latest = await latestOrNone(target.client, slug);
      // The plan shows predicted versions for subagents promoted in this run.
      const predicted = new Map([...pinnedToStep].map(([index, name]) => [index, (steps.get(name)?.latest?.version ?? 0) + 1]));
      const plan = agentPlan({ target: desired.target, slug, definition: withSubagentVersions(definition, predicted), latest, promotion: { fromEnvironment: from, version: source.version } });
      const step: Step = { slug, from: fromRef, definition, pinnedToStep, latest, outcome: promotionOutcome(latest, fromRef, hasChanges(plan)), kept: merged.kept, plan };
      planning.delete(slug);
      steps.set(slug, step);
      return step;
    };

    await planStep(agent, version);
    const ordered = [...steps.values()];
    for (const step of ordered) {
      process.stdout.write(`${renderPlanText(step.plan, { color })}\n`);
      for (const field of step.kept) {
        const sourceSide = field.sourceValue === undefined ? 'not set' : formatValue(field.sourceValue);
        process.stdout.write(`Kept ${to}'s ${field.path} = ${formatValue(field.value)} (set by its overlay; ${from} v${step.from.version} has ${sourceSide})\n`);
      }
      if (step.outcome === 'no-op') process.stdout.write(`${step.slug}: ${to} v${step.latest?.version} already came from ${from} v${step.from.version}; nothing to do.\n`);
      if (step.outcome === 'matches-without-provenance') {
        process.stdout.write(`${step.slug}: ${to} v${step.latest?.version} already has this definition; the server makes no new version for it, so nothing is written.\n`);
      }
    }
    const writes = ordered.filter((step) => step.outcome === 'promote');
    if (writes.length === 0) return;
    await confirmOrRefuse(`\nPromote ${writes.map((step) => step.slug).join(', ')} from ${from} to ${to} (${target.targetLabel})? Only 'yes' will be accepted: `, options.autoApprove, 'promote');
    const written = new Map<string, number>();
    for (const step of writes) {
      const definition = withSubagentVersions(step.definition, new Map([...step.pinnedToStep].map(([index, name]) => [index, written.get(name) ?? 0])));
      const result = await target.client.call('agents.upsert', {
        slug: step.slug,
        definition: withoutNullFields({ name: step.slug, ...definition }) as unknown as AgentDefinition,
        promotedFrom: step.from,
      });
      written.set(step.slug, result.version);
      process.stdout.write(`Promoted ${step.slug}: ${from} v${step.from.version} → ${to} v${result.version}\n`);
    }
  } finally {
    await sources.close();
    await target.close();
  }
}

function missingSubagent(slug: string, version: number, subagent: string, needed: number | undefined, present: AgentVersionWithSlug | undefined): UserError {
  const have = present ? `its latest ${subagent} is v${present.version}${present.promotedFrom ? ` (promoted from version ${present.promotedFrom.version})` : ' (not promoted)'}` : `it has no ${subagent}`;
  return new UserError(
    `${slug} v${version} needs subagent ${subagent}${needed !== undefined ? ` at source version ${needed}` : ''}, which the target does not have: ${have}`,
    `promote ${subagent} first, or pass --with-subagents to promote it in the same run`,
  );
}
