// What promote and rollback run before they write agent definitions, in this order: the references
// the target lacks (refused), then the target's rules over the whole environment with the written
// agents in it (refused on an error, as apply refuses). One place, so the two commands cannot drift.
import type { RpcCaller } from '../api/operations.js';
import type { Project } from '../config/index.js';
import type { DesiredState, JsonObject } from '../model/resources.js';
import type { ToolSurfaceLock } from '../model/tool-lock.js';
import { refuseWritesWithMissingReferences } from '../pipeline/target-references.js';
import type { JudgedDefinition } from '../promotion/judged-definition.js';
import { paletteFor } from '../render/palette.js';
import { renderFindingsText } from '../render/safety.js';
import { refuseOnBlockingFindings, reviewPromotion } from '../safety/index.js';

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

export async function reviewAgentWrites(input: {
  client: RpcCaller;
  project: Project;
  desired: DesiredState;
  writes: ReadonlyMap<string, AgentWrite>;
  lock: ToolSurfaceLock | undefined;
  color: boolean;
  command: 'promote' | 'roll back';
}): Promise<void> {
  const { writes } = input;
  const definitions = new Map([...writes].map(([slug, write]) => [slug, write.definition]));
  for (const warning of await refuseWritesWithMissingReferences(input.client, input.desired, definitions)) process.stderr.write(`Warning: ${warning}\n`);
  const notes = [...writes]
    .filter(([, write]) => !write.judged.asConfigured)
    .map(
      ([slug, write]) =>
        `agent/${slug} is judged as written, values its server filled in included: ${write.version} is not ${write.configuredIn}'s configuration of it`,
    );
  const judged = new Map([...writes].map(([slug, write]) => [slug, write.judged.definition]));
  const policy = reviewPromotion({ project: input.project, desired: input.desired, promoted: judged, notes, ...(input.lock ? { lock: input.lock } : {}) });
  if (policy.findings.length > 0 || policy.notes.length > 0) process.stdout.write(`${renderFindingsText(policy, paletteFor(input.color)).join('\n')}\n`);
  refuseOnBlockingFindings(policy, input.command);
}
