// Reading a promotion's source, shared by declarative promotion (resolve.ts) and the promote command
// (promote.ts): the source version, its provenance record, and its definition merged with the
// fields the target keeps.
import type { AgentVersionWithSlug, PromotedFrom } from '../model/api.js';
import type { JsonObject } from '../model/resources.js';
import type { Project } from '../config/index.js';
import { keptPathsFor } from './kept-fields.js';
import { mergePromoted, type PromotedDefinition } from './merge.js';
import type { SubagentNeed } from './subagents.js';
import { jsonOf } from '../model/specs.js';
import { judgedDefinition, type JudgedDefinition } from './judged-definition.js';

export interface SourceReader {
  /** The server id of an environment (by agentform name), for `promotedFrom.environmentId`. */
  environmentId(environment: string): Promise<string>;
  /** `agents.get` in that environment. */
  agent(environment: string, slug: string, version?: number): Promise<AgentVersionWithSlug>;
  /** That environment's configuration of the agent (undefined: not declared there, or not known). */
  configured?(environment: string, slug: string): JsonObject | undefined;
}

export interface PromotedSource {
  source: AgentVersionWithSlug;
  from: PromotedFrom;
  merged: PromotedDefinition;
  /** What the rules judge of a definition written from this source (judged-definition.ts). */
  judge(written: JsonObject): JudgedDefinition;
}

/** The source version of `slug`, its `promotedFrom` record, and its definition with `target`'s kept fields. */
export async function readPromotedSource(
  reader: SourceReader,
  project: Pick<Project, 'documents'>,
  request: { fromEnvironment: string; environmentId: string; slug: string; version: number | undefined; targetEnvironment: string; targetSpec: JsonObject },
): Promise<PromotedSource> {
  const source = await reader.agent(request.fromEnvironment, request.slug, request.version);
  const from: PromotedFrom = { environmentId: request.environmentId, agentId: source.agentId, version: source.version };
  const keptPaths = keptPathsFor(project, request.slug, request.targetEnvironment);
  const merged = mergePromoted({ ...jsonOf(source.definition) }, request.targetSpec, keptPaths);
  const configured = reader.configured?.(request.fromEnvironment, request.slug);
  // The target's kept fields are set by the write, on top of what the source configured.
  const shape = configured ? mergePromoted(configured, request.targetSpec, keptPaths).definition : undefined;
  const judge = (written: JsonObject) => judgedDefinition(written, jsonOf(source.definition), configured, shape);
  return { source, from, merged, judge };
}

/** The provenance a target version of a pinned subagent must have to be "that source version". */
export async function neededProvenance(
  reader: SourceReader,
  fromEnvironment: string,
  environmentId: string,
  need: Required<SubagentNeed>,
): Promise<PromotedFrom> {
  const subSource = await reader.agent(fromEnvironment, need.agent, need.version);
  return { environmentId, agentId: subSource.agentId, version: need.version };
}

/** What the target has of a subagent, for messages: "its latest X is v3 (promoted from version 2)". */
export function targetHas(agent: string, present: Pick<AgentVersionWithSlug, 'version' | 'promotedFrom'> | undefined): string {
  return present
    ? `its latest ${agent} is v${present.version}${present.promotedFrom ? ` (promoted from version ${present.promotedFrom.version})` : ' (not promoted)'}`
    : `it has no ${agent}`;
}
