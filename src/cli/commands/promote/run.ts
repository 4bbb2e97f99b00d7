// agentform promote AGENT --from A --to B [--version N]: the source version's definition, with the
// fields the target's overlay sets kept, upserted into B with promotedFrom. All steps (subagents
// first with --with-subagents) are planned and shown before the single confirmation.
import { refuseAgentWritesOutOfScope } from '../../../engine/ownership.js';
import { ownershipRulesOf } from '../../../config/ownership.js';
import { resolve } from 'node:path';
import { agentWriter } from '../../../apply/agent-writer.js';
import { desiredStateFor, ignoreRulesOf, loadProject, pickEnvironment } from '../../../config/index.js';
import { UserError } from '../../../errors.js';
import { connect, runContext } from '../../../pipeline/session.js';
import { SourceSessions } from '../../../pipeline/sources.js';
import { unknownFieldsNotice } from '../../../pipeline/known-definition.js';
import { planPromotion, writePromotion } from '../../../promotion/promote.js';
import { renderPromotionStep } from '../../../render/promotion.js';
import { jsonOf } from '../../../model/specs.js';
import type { Plan } from '../../../model/resources.js';
import { promotionCapabilityChanges, readToolLock } from '../../../safety/index.js';
import { latestAgentVersion } from '../../../state/agents.js';
import type { GlobalOptions } from '../../global-options.js';
import { confirmOrRefuse } from '../../prompt.js';
import { reviewAgentWrites } from '../../review-writes.js';
import { useColor } from '../../terminal.js';
import type { PromoteCommandOptions } from './options.js';
import { breakGlassRequest, nowOf } from '../../break-glass.js';
import { refuseDirectAgentWriteInStrict } from '../../strict-refusals.js';

export async function runPromote(agent: string, options: PromoteCommandOptions, globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const version = options.sourceVersion === undefined ? undefined : Number(options.sourceVersion);
  if (version !== undefined && (!Number.isInteger(version) || version < 1))
    throw new UserError(`--source-version must be a whole number ≥ 1, not ${options.sourceVersion}`);
  const breakGlass = breakGlassRequest(options.breakGlass, env);
  const project = await loadProject(resolve(options.dir ?? '.'));
  const from = pickEnvironment(project, options.from);
  const to = pickEnvironment(project, options.to);
  if (from === to) throw new UserError(`--from and --to are both ${from}`);
  const desired = desiredStateFor(project, to, env);
  refuseDirectAgentWriteInStrict(desired.target, 'promote', agent);
  const run = runContext(globals, env);
  const target = await connect(project, desired, run);
  const sources = new SourceSessions(project, run);
  const color = useColor(globals);
  try {
    const ordered = await planPromotion(
      {
        project,
        desired,
        agent,
        ...(version !== undefined ? { version } : {}),
        from,
        to,
        withSubagents: options.withSubagents === true,
        ignore: ignoreRulesOf(project.root),
      },
      sources,
      { latest: (slug) => latestAgentVersion(target.client, slug) },
    );
    // Subagents promoted along (--with-subagents) are writes too.
    refuseAgentWritesOutOfScope(
      ordered.map((step) => step.slug),
      ownershipRulesOf(project, to),
      'promote',
    );
    // One read of the lock for every step's capability diff and the policy review.
    const lock = await readToolLock(project.dir);
    for (const step of ordered) {
      const before = step.latest ? jsonOf(step.latest.definition) : undefined;
      const capabilities = promotionCapabilityChanges({ lock, desired, slug: step.slug, before, after: step.definition });
      process.stdout.write(renderPromotionStep(step, { from, to, color, capabilities }));
    }
    const writes = ordered.filter((step) => step.outcome === 'promote');
    if (writes.length === 0) return;
    // An agent that names a provider, connection, subagent or secret the target does not run
    // cannot run there; the target's rules judge what promote writes as apply's judge what it
    // writes. Both before the question and any write.
    const promoted = new Map(
      writes.map((step) => [step.slug, { definition: step.definition, judged: step.judged, version: `${from} v${step.from.version}`, configuredIn: from }]),
    );
    // The writes as one plan, for the tool-surface lock (which agents change, and how) and the
    // rules over the plan (which judge its counts too).
    const plan = mergedPlan(writes.map((step) => step.plan));
    const lockGate = await reviewAgentWrites({
      client: target.client,
      project,
      desired,
      writes: promoted,
      plan,
      lock,
      color,
      command: 'promote',
      windows: { now: nowOf(env), ...(breakGlass ? { breakGlass } : {}) },
    });
    const notice = unknownFieldsNotice(`${from}`, [...new Set([...sources.unknownFields.values()].flat())]);
    if (notice) process.stderr.write(`${notice}\n`);
    await confirmOrRefuse(
      `\nPromote ${writes.map((step) => step.slug).join(', ')} from ${from} to ${to} (${target.targetLabel})? Only 'yes' will be accepted: `,
      options.autoApprove,
      'promote',
    );
    await writePromotion(writes, agentWriter(target.client), (step, written) => {
      process.stdout.write(`Promoted ${step.slug}: ${from} v${step.from.version} → ${to} v${written}\n`);
    });
    await lockGate.finish();
  } finally {
    await sources.close();
    await target.close();
  }
}

/** Several one-agent plans as one: changes, order and counts together. */
function mergedPlan(plans: readonly Plan[]): Plan {
  const summary = { add: 0, change: 0, adopt: 0, replace: 0, destroy: 0, unmanaged: 0 };
  for (const plan of plans) for (const key of Object.keys(summary) as Array<keyof Plan['summary']>) summary[key] += plan.summary[key];
  return {
    ...plans[0]!,
    changes: plans.flatMap((plan) => plan.changes),
    order: plans.flatMap((plan) => plan.order),
    summary,
    warnings: plans.flatMap((plan) => plan.warnings),
  };
}
