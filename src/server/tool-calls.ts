// Dev-only tool calls (`POST /dev/tools/call`): the local plane has no agent runtime, so this is
// the one place where it calls a connection's tool on an agent's behalf. Started with
// `--enforce-tool-policy`, it decides the call as a runtime would under the agent's latest
// version (policies.toolCalls): denied is refused, one that waits for a decision is not run.
import { decisionFor } from '../engine/capabilities.js';
import type { JsonObject } from '../model/resources.js';
import type { ToolDecision } from '../model/safety.js';
import { environmentOf, type HandlerContext } from './context.js';
import { latestVersion } from './handlers/agents.js';
import { connectionsOf } from './handlers/connections.js';
import { invalid, ServiceError } from './service-error.js';
import { isPlainObject } from './util.js';

export interface ToolCallRequest {
  agent: string;
  connection: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export interface ToolCallResult {
  agentVersion: number;
  /** The decision under the agent's policy (computed whether or not it is enforced). */
  decision: ToolDecision;
  enforced: boolean;
  /** `called`: the tool ran (its MCP answer in `result`); `pending`: it waits for a decision, not run. */
  outcome: 'called' | 'pending';
  result?: Record<string, unknown>;
}

export function parseToolCallRequest(body: unknown): ToolCallRequest {
  if (!isPlainObject(body)) throw invalid('(body)', 'must be an object');
  for (const field of ['agent', 'connection', 'tool'] as const) {
    if (typeof body[field] !== 'string' || body[field] === '') throw invalid(field, 'is required (a non-empty string)');
  }
  if (body.arguments !== undefined && !isPlainObject(body.arguments)) throw invalid('arguments', 'must be an object');
  return {
    agent: body.agent as string,
    connection: body.connection as string,
    tool: body.tool as string,
    arguments: (body.arguments ?? {}) as Record<string, unknown>,
  };
}

export type CallTool = (url: string, name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Decides (and, with `enforce`, refuses) one tool call of an agent through one of its connections, then makes it. */
export async function callAgentTool(ctx: HandlerContext, request: ToolCallRequest, enforce: boolean, call: CallTool): Promise<ToolCallResult> {
  if (!ctx.tenancy.scopes.has('control')) throw new ServiceError('permission_denied', 'calling a tool needs the control scope');
  const environmentId = environmentOf(ctx);
  const agent = latestVersion(ctx.db, environmentId, request.agent);
  const names = (agent.definition.tools ?? []).filter((tool) => tool.type === 'connection').map((tool) => tool.name);
  // An agent only ever reaches the connections its definition names, policy or not.
  if (!names.includes(request.connection))
    throw new ServiceError('permission_denied', `tool call refused: agent ${request.agent} does not use connection ${request.connection}`);
  const connection = connectionsOf(ctx.db, environmentId).find((row) => row.name === request.connection);
  if (!connection) throw new ServiceError('not_found', `connection ${request.connection} not found`);
  if (!connection.url) throw new ServiceError('failed_precondition', `connection ${request.connection} has no url`);
  const decision = decisionFor(agent.definition as unknown as JsonObject, request.tool);
  const base = { agentVersion: agent.version, decision, enforced: enforce };
  if (enforce && decision === 'denied') {
    throw new ServiceError(
      'permission_denied',
      `tool call refused: ${request.connection}.${request.tool} is denied by the tool policy of agent ${request.agent} (version ${agent.version})`,
    );
  }
  if (enforce && decision === 'hook') return { ...base, outcome: 'pending' };
  try {
    return { ...base, outcome: 'called', result: await call(connection.url, request.tool, request.arguments) };
  } catch (err) {
    throw new ServiceError('failed_precondition', `connection ${request.connection}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
