// agentform rollback AGENT --to N -e ENV: version N's definition becomes a new version. Git is not
// touched, so the configuration now disagrees with the live state: said on stderr. A rollback is a
// change like any other: the environment's rules, lock and capability diff judge what it writes.
import { refuseAgentWritesOutOfScope } from '../../../engine/ownership.js';
import { ownershipRulesOf } from '../../../config/ownership.js';
import { resolve } from 'node:path';
import { ignoreRulesOf, loadProject } from '../../../config/index.js';
import { UserError } from '../../../errors.js';
import { agentWriter } from '../../../apply/agent-writer.js';
import { agentPlan, hasChanges, keepIgnoredOfAgent } from '../../../promotion/agent-plan.js';
import { renderPlanText } from '../../../render/text.js';
import type { GlobalOptions } from '../../global-options.js';
import { useColor } from '../../terminal.js';
import { desiredStateFor, pickEnvironment } from '../../../config/index.js';
import { connect, runContext } from '../../../pipeline/session.js';
import { unknownFieldsNotice, withKnownDefinition } from '../../../pipeline/known-definition.js';
import { judgedDefinition } from '../../../promotion/judged-definition.js';
import { reviewAgentWrites } from '../../review-writes.js';
import { confirmOrRefuse } from '../../prompt.js';
import { latestAgentVersion as latestOrNone } from '../../../state/agents.js';
import type { RollbackCommandOptions } from './options.js';
import { breakGlassRequest, nowOf } from '../../break-glass.js';
import { refuseDirectAgentWriteInStrict } from '../../strict-refusals.js';
import { jsonOf } from '../../../model/specs.js';
import { paletteFor } from '../../../render/palette.js';
import { renderCapabilityChangesText } from '../../../render/safety.js';
import { promotionCapabilityChanges, readToolLock } from '../../../safety/index.js';

export async function runRollback(agent: string, options: RollbackCommandOptions, globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const version = Number(options.to);
  if (!Number.isInteger(version) || version < 1) throw new UserError(`--to must be a whole number ≥ 1, not ${options.to}`);
  const breakGlass = breakGlassRequest(options.breakGlass, env);
  const project = await loadProject(resolve(options.dir ?? '.'));
  const environment = pickEnvironment(project, options.env);
  refuseAgentWritesOutOfScope([agent], ownershipRulesOf(project, environment), 'roll back');
  // The environment's configuration is the review's context (its grants, providers, settings).
  const desired = desiredStateFor(project, environment, env);
  refuseDirectAgentWriteInStrict(desired.target, 'roll back', agent);
  const session = await connect(project, desired, runContext(globals, env));
  try {
    const latest = await latestOrNone(session.client, agent);
    if (!latest) throw new UserError(`environment ${environment} has no agent ${agent}`);
    if (version > latest.version) throw new UserError(`${agent} in ${environment} has versions 1 to ${latest.version}, not ${version}`);
    const wanted = withKnownDefinition(await session.client.call('agents.get', { slug: agent, version }));
    const { definition, ignored } = keepIgnoredOfAgent(agent, jsonOf(wanted.version.definition), latest, ignoreRulesOf(project.root));
    const target = { ...desired.target };
    const plan = agentPlan({ target, slug: agent, definition, latest, reason: `rollback to v${version}`, ignored });
    const color = useColor(globals);
    process.stdout.write(`${renderPlanText(plan, { color })}\n`);
    if (!hasChanges(plan)) {
      process.stdout.write(`${agent}: v${latest.version} already has the definition of v${version}; nothing to do.\n`);
      return;
    }
    const lock = await readToolLock(project.dir);
    const capabilities = promotionCapabilityChanges({ lock, desired, slug: agent, before: jsonOf(latest.definition), after: definition });
    const capabilityLines = renderCapabilityChangesText(capabilities, paletteFor(color));
    if (capabilityLines.length > 0) process.stdout.write(`${capabilityLines.join('\n')}\n`);
    // Version N judged as the configuration when it is the configuration as applied (judged-definition.ts).
    const configured = desired.resources.find((resource) => resource.kind === 'agent' && resource.name === agent && !resource.promotion)?.spec;
    const judged = judgedDefinition(definition, definition, configured);
    const writes = new Map([[agent, { definition, judged, version: `v${version}`, configuredIn: environment }]]);
    const lockGate = await reviewAgentWrites({
      client: session.client,
      project,
      desired,
      writes,
      plan,
      lock,
      color,
      command: 'roll back',
      windows: { now: nowOf(env), ...(breakGlass ? { breakGlass } : {}) },
    });
    const notice = unknownFieldsNotice(`${agent} v${version}`, wanted.unknown);
    if (notice) process.stderr.write(`${notice}\n`);
    await confirmOrRefuse(
      `\nRoll ${agent} in ${environment} back to the definition of v${version}? Only 'yes' will be accepted: `,
      options.autoApprove,
      'roll back',
    );
    const result = await agentWriter(session.client).upsert(agent, definition);
    await lockGate.finish();
    process.stdout.write(`Rolled back ${agent} in ${environment}: v${result.version} has the definition of v${version}.\n`);
    // A version that is the configuration as applied brings the live state back to the YAML.
    if (judged.asConfigured) process.stdout.write(`v${version} is ${environment}'s configuration of ${agent}: the live state and the YAML agree again.\n`);
    else
      process.stderr.write(
        `Warning: the configuration in Git now disagrees with the live state of ${environment}: the next \`agentform plan -e ${environment}\` shows agent/${agent} changing back. Update the YAML (or revert the commit) to match.\n`,
      );
  } finally {
    await session.close();
  }
}
