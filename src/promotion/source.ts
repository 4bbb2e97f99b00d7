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

export interface SourceReader {
  /** The server id of an environment (by agentform name), for `promotedFrom.environmentId`. */
  environmentId(environment: string): Promise<string>;
  /** `agents.get` in that environment. */
  agent(environment: string, slug: string, version?: number): Promise<AgentVersionWithSlug>;
}

export interface PromotedSource {
  source: AgentVersionWithSlug;
  from: PromotedFrom;
  merged: PromotedDefinition;
}

/** The source version of `slug`, its `promotedFrom` record, and its definition with `target`'s kept fields. */
export async function readPromotedSource(
  reader: SourceReader,
  project: Pick<Project, 'documents'>,
  request: { fromEnvironment: string; environmentId: string; slug: string; version: number | undefined; targetEnvironment: string; targetSpec: JsonObject },
): Promise<PromotedSource> {
  const source = await reader.agent(request.fromEnvironment, request.slug, request.version);
  const from: PromotedFrom = { environmentId: request.environmentId, agentId: source.agentId, version: source.version };
  const merged = mergePromoted({ ...jsonOf(source.definition) }, request.targetSpec, keptPathsFor(project, request.slug, request.targetEnvironment));
  return { source, from, merged };
}

/** The provenance a target version of a pinned subagent must have to be "that source version". */
export async function neededProvenance(reader: SourceReader, fromEnvironment: string, environmentId: string, need: Required<SubagentNeed>): Promise<PromotedFrom> {
  const subSource = await reader.agent(fromEnvironment, need.agent, need.version);
  return { environmentId, agentId: subSource.agentId, version: need.version };
}

/** What the target has of a subagent, for messages: "its latest X is v3 (promoted from version 2)". */
export function targetHas(agent: string, present: Pick<AgentVersionWithSlug, 'version' | 'promotedFrom'> | undefined): string {
  return present ? `its latest ${agent} is v${present.version}${present.promotedFrom ? ` (promoted from version ${present.promotedFrom.version})` : ' (not promoted)'}` : `it has no ${agent}`;
}
