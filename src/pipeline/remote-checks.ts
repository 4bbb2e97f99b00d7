// `validate --remote`: the checks that need the API. Each agent's models must be offered by their
// providers (providers.models, read scope) and the tools its policies give decisions for must
// exist on one of the connections it can call (connections.test, control scope). Resources not created yet are checked after apply.
import { relative } from 'node:path';
import type { Problem } from '../config/index.js';
import { formatJsonPath, type PathSegment } from '../config/problems.js';
import { didYouMean } from '../config/suggest.js';
import { ApiError, type SourceLocation } from '../errors.js';
import type { AgentDefinition } from '../model/api.js';
import type { DesiredResource, DesiredState } from '../model/resources.js';
import type { RpcCaller } from '../api/operations.js';
import { readActualState } from '../state/read.js';
import { agentDefinitionOf } from '../model/specs.js';
import { agentDefinitionReferences } from '../engine/references.js';

export interface RemoteCheckResult {
  problems: Problem[];
  /** Checks that could not run, and why (printed, never an error). */
  notices: string[];
}

interface ModelUse {
  provider: string;
  model: string;
  /** Within the spec, e.g. ['model', 'model']. */
  path: PathSegment[];
}

function modelUses(definition: Partial<AgentDefinition>): ModelUse[] {
  const uses: ModelUse[] = [];
  const add = (ref: { provider?: string; model?: string } | undefined, path: PathSegment[]) => {
    if (ref?.provider && ref.model) uses.push({ provider: ref.provider, model: ref.model, path });
  };
  add(definition.model, ['model', 'model']);
  (definition.model?.fallback?.models ?? []).forEach((ref, index) => add(ref, ['model', 'fallback', 'models', index, 'model']));
  add(definition.compaction?.model, ['compaction', 'model', 'model']);
  return uses;
}

/**
 * The tool names an agent's policies give decisions for. Sandbox tool names (`sandbox.tools.allow`
 * and `deny`: grep, rm, ...) are tools of the sandbox, not of any connection, so they are never
 * looked for in a connection's tool list.
 */
function toolUses(definition: Partial<AgentDefinition>): Array<{ name: string; path: PathSegment[] }> {
  const sandboxTools = new Set([...(definition.sandbox?.tools?.allow ?? []), ...(definition.sandbox?.tools?.deny ?? [])]);
  return Object.keys(definition.policies?.toolCalls?.byTool ?? {})
    .filter((name) => !sandboxTools.has(name))
    .map((name) => ({ name, path: ['policies', 'toolCalls', 'byTool', name] }));
}

/**
 * Every connection whose tools the agent can reach, each once: the ones its tools[] give it, its
 * hook and its sandbox's (the same list the reference check and the graph read).
 */
function connectionsOf(resource: DesiredResource): string[] {
  return [
    ...new Set(
      agentDefinitionReferences(resource.spec)
        .filter((reference) => reference.kind === 'connection')
        .map((reference) => reference.name),
    ),
  ];
}

/** Memoises one remote answer per key, so each provider and connection is asked once. */
function memo<T>(load: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const cache = new Map<string, Promise<T>>();
  return (key) => {
    let value = cache.get(key);
    if (!value) {
      value = load(key);
      cache.set(key, value);
    }
    return value;
  };
}

/** Where a spec value of a resource is written (file relative to the project), if known. */
export type SpecValueLocator = (resource: DesiredResource, path: readonly PathSegment[]) => SourceLocation | undefined;

export async function remoteChecks(caller: RpcCaller, desired: DesiredState, locate: SpecValueLocator = () => undefined): Promise<RemoteCheckResult> {
  const problems: Problem[] = [];
  const notices = new Set<string>();
  const environment = desired.target.name;
  const actual = await readActualState(caller, desired.target.slug, ['provider', 'connection']);
  const providers = new Set(actual.resources.filter((resource) => resource.kind === 'provider').map((resource) => resource.name));
  const connectionIds = new Map(actual.resources.filter((resource) => resource.kind === 'connection').map((resource) => [resource.name, resource.id]));
  const modelsOf = memo(async (provider) => (await caller.call('providers.models', { name: provider })).map((model) => model.id));
  const toolsOf = memo(async (connection) =>
    (await caller.call('connections.test', { id: connectionIds.get(connection) as string })).tools.map((tool) => tool.name),
  );

  // At the offending value (the environment's overlay when it sets it), else at the document.
  const located = (resource: DesiredResource, path: readonly PathSegment[], message: string): Problem => {
    const location =
      locate(resource, path) ??
      (resource.location ? { ...resource.location, file: relative(desired.projectDir, resource.location.file) || resource.location.file } : undefined);
    return { message, jsonPath: formatJsonPath(['spec', ...path]), severity: 'error', ...(location ? { location } : {}) };
  };

  const agents = desired.resources.filter((resource) => resource.kind === 'agent');
  await Promise.all(
    agents.map(async (resource) => {
      const definition = agentDefinitionOf(resource.spec);
      for (const use of modelUses(definition)) {
        if (!providers.has(use.provider)) {
          notices.add(`provider ${use.provider} does not exist in ${environment} yet: its models are checked after apply`);
          continue;
        }
        try {
          const offered = await modelsOf(use.provider);
          if (!offered.includes(use.model)) {
            problems.push(
              located(resource, use.path, `model "${use.model}" is not offered by provider ${use.provider} in ${environment}${didYouMean(use.model, offered)}`),
            );
          }
        } catch (error) {
          notices.add(`could not list the models of provider ${use.provider}: ${describe(error)}`);
        }
      }
      const tools = toolUses(definition);
      if (tools.length === 0) return;
      const connections = connectionsOf(resource);
      if (connections.length === 0) return;
      // A tools[] connection item names a connection, not a tool: only the other items are tools.
      const offered = new Set((definition.tools ?? []).filter((tool) => tool.type !== 'connection').map((tool) => tool.name));
      for (const connection of connections) {
        if (!connectionIds.has(connection)) {
          notices.add(`connection ${connection} does not exist in ${environment} yet: its tools are checked after apply`);
          return;
        }
        try {
          for (const name of await toolsOf(connection)) offered.add(name);
        } catch (error) {
          if (error instanceof ApiError && error.code === 'permission_denied') {
            notices.add('tool checks skipped: connections.test needs the control scope, and this key does not have it');
          } else {
            notices.add(`tool checks of connection ${connection} skipped: ${describe(error)}`);
          }
          return;
        }
      }
      for (const tool of tools) {
        if (offered.has(tool.name)) continue;
        const problem = located(
          resource,
          tool.path,
          `tool "${tool.name}" is not offered by ${connections.join(' or ')} in ${environment}${didYouMean(tool.name, offered)}`,
        );
        // An agent with a sandbox may give decisions for sandbox tools, whose names the API does
        // not list anywhere: such a name cannot be judged, only pointed out.
        problems.push(definition.sandbox ? { ...problem, severity: 'warning', message: `${problem.message} (fine if it is a sandbox tool)` } : problem);
      }
    }),
  );
  return { problems, notices: [...notices].sort() };
}

function describe(error: unknown): string {
  return error instanceof ApiError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
}
