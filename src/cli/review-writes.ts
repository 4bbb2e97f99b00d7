// What promote and rollback run before they write agent definitions, in this order: the change
// windows of the target (refused inside one, unless --break-glass, then recorded), the references
// the target lacks (refused), the target's rules over the whole environment with the written
// agents in it and over the writes as a plan (refused on an error), and the tool-surface lock of
// the connections they use (refused on a difference), each as apply runs it. One place, so the
// two commands cannot drift.
import type { RpcCaller } from '../api/operations.js';
import type { ToolLockGate } from '../apply/tool-lock-check.js';
import type { Project } from '../config/index.js';
import { connectionsOfChangedAgents } from '../engine/tool-surface.js';
import type { DesiredState, JsonObject, Plan } from '../model/resources.js';
import { applyToolLockGate } from '../pipeline/tool-lock.js';
import { renderSurfaceDiff } from '../render/tool-surface.js';
import { readActualState } from '../state/read.js';
import type { ToolSurfaceLock } from '../model/tool-lock.js';
import { refuseWritesWithMissingReferences } from '../pipeline/target-references.js';
import type { JudgedDefinition } from '../promotion/judged-definition.js';
import { paletteFor } from '../render/palette.js';
import { renderFindingsText } from '../render/safety.js';
import { refuseOnBlockingFindings, reviewPromotion, withWrittenAgents } from '../safety/index.js';
import { type BreakGlassRequest, reviewChangeWindows, verdictNote } from '../safety/change-windows.js';
import { recordBreakGlassSummary } from './break-glass.js';

export interface AgentWrite {
  /** What is written. */
  definition: JsonObject;
  /** What the rules judge of it. */
  judged: JudgedDefinition;
  /** The version written from, for the note when it is judged whole: `staging v3`. */
  version: string;
  /** The environment whose configuration it was compared with. */
  configuredIn: string;
}

/**
 * Runs every check before the write; returns the lock gate, whose `finish()` after the write records
 * the connections locked for the first time (as apply's does). `plan`: the writes as plan changes.
 */
export async function reviewAgentWrites(input: {
  client: RpcCaller;
  project: Project;
  desired: DesiredState;
  writes: ReadonlyMap<string, AgentWrite>;
  plan: Plan;
  lock: ToolSurfaceLock | undefined;
  color: boolean;
  command: 'promote' | 'roll back';
  /** The clock the change windows are judged by, and --break-glass if given. */
  windows: { now: Date; breakGlass?: BreakGlassRequest };
}): Promise<ToolLockGate> {
  const { writes } = input;
  const environment = input.desired.target.name;
  const verdict = reviewChangeWindows({ root: input.project, environment, ...input.windows, command: input.command });
  const note = verdictNote(verdict, environment);
  if (note) process.stderr.write(`${note}\n`);
  if (verdict.outcome === 'break-glass') recordBreakGlassSummary(input.command, environment, verdict.record, process.env);
  const definitions = new Map([...writes].map(([slug, write]) => [slug, write.definition]));
  for (const warning of await refuseWritesWithMissingReferences(input.client, input.desired, definitions)) process.stderr.write(`Warning: ${warning}\n`);
  const notes = [...writes]
    .filter(([, write]) => !write.judged.asConfigured)
    .map(
      ([slug, write]) =>
        `agent/${slug} is judged as written, values its server filled in included: ${write.version} is not ${write.configuredIn}'s configuration of it`,
    );
  const judged = new Map([...writes].map(([slug, write]) => [slug, write.judged.definition]));
  const policy = reviewPromotion({
    project: input.project,
    desired: input.desired,
    promoted: judged,
    plan: input.plan,
    writtenBy: { command: input.command, ...(input.command === 'promote' ? { from: [...writes.values()][0]?.configuredIn } : {}) },
    notes,
    ...(input.lock ? { lock: input.lock } : {}),
  });
  if (policy.findings.length > 0 || policy.notes.length > 0) process.stdout.write(`${renderFindingsText(policy, paletteFor(input.color)).join('\n')}\n`);
  refuseOnBlockingFindings(policy, input.command);
  return lockGate(input.client, withWrittenAgents(input.desired, definitions), input.plan, input.command);
}

/** The connections the written agents use must serve what agentform.lock.yaml records, as for apply. */
async function lockGate(client: RpcCaller, desired: DesiredState, plan: Plan, command: 'promote' | 'roll back'): Promise<ToolLockGate> {
  const used = connectionsOfChangedAgents(plan, desired);
  if (used.existing.length === 0 && used.created.length === 0) return { finish: async () => undefined };
  const actual = await readActualState(client, desired.target.slug, ['connection']);
  return applyToolLockGate(client, { plan, desired, actual }, plan, false, renderSurfaceDiff, undefined, command);
}
