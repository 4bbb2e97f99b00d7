// Dev-only session simulator: records what a real runtime would (session events, pending tool
// calls, usage rows, sandboxes) so that sessions.*, usage.keys, sandboxes.list and hook
// deliveries can be exercised without running any agent.
import type { Identity, PendingToolCall, Sandbox, SessionEvent, UsageTotals } from '../model/api.js';
import { environmentOf, type HandlerContext } from './context.js';
import { latestVersion } from './handlers/agents.js';
import { connectionsOf } from './handlers/connections.js';
import { USAGE_FIELDS } from '../model/api.js';
import { enqueueDelivery } from './hooks/queue.js';
import { writeTx } from './store/db.js';
import { invalid, ServiceError } from './service-error.js';
import { isPlainObject, newId, nowIso, parseJson } from './util.js';

export interface SimulateRequest {
  agent: string;
  identity?: { scope: string; id: string };
  events?: string[];
  pending?: number;
  usage?: Partial<UsageTotals> & { at?: string };
  sandboxes?: number;
}

export interface SimulateResult {
  sessionId: string;
  agentVersion: number;
  events: SessionEvent[];
  deliveries: string[];
  pending: string[];
  sandboxes: string[];
}

const DEFAULT_EVENTS = ['session.started', 'session.completed'];
const MAX_ITEMS = 1_000;

export function parseSimulateRequest(body: unknown): SimulateRequest {
  if (!isPlainObject(body)) throw invalid('(body)', 'must be an object');
  if (typeof body.agent !== 'string' || body.agent === '') throw invalid('agent', 'is required (an agent slug)');
  const request: SimulateRequest = { agent: body.agent };
  if (body.identity !== undefined) {
    const identity = body.identity;
    if (!isPlainObject(identity) || typeof identity.scope !== 'string' || typeof identity.id !== 'string') throw invalid('identity', 'must be {scope, id}');
    request.identity = { scope: identity.scope, id: identity.id };
  }
  if (body.events !== undefined) {
    if (!Array.isArray(body.events) || body.events.length > MAX_ITEMS || !body.events.every((e) => typeof e === 'string' && e !== '')) {
      throw invalid('events', `must be an array of at most ${MAX_ITEMS} event types`);
    }
    request.events = body.events as string[];
  }
  for (const field of ['pending', 'sandboxes'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_ITEMS) throw invalid(field, `must be an integer 0..${MAX_ITEMS}`);
    request[field] = value as number;
  }
  if (body.usage !== undefined) {
    if (!isPlainObject(body.usage)) throw invalid('usage', 'must be an object');
    for (const [key, value] of Object.entries(body.usage)) {
      if (key === 'at') {
        if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw invalid('usage.at', 'must be an RFC 3339 timestamp');
      } else if (!(USAGE_FIELDS as readonly string[]).includes(key) || typeof value !== 'number') {
        throw invalid(`usage.${key}`, `must be one of ${USAGE_FIELDS.join(', ')} with a number`);
      }
    }
    request.usage = body.usage as SimulateRequest['usage'];
  }
  return request;
}

function sandboxRecord(sessionId: string, imageRef: string | undefined, now: string): Sandbox {
  const id = newId('sbx');
  const sandbox: Sandbox = {
    id,
    state: 'provisioning',
    provider: 'local',
    ownerSessionId: sessionId,
    rootSessionId: sessionId,
    externalId: `local-${id.slice(4)}`,
    lastActivityAt: now,
    idleSince: null,
    snapshotAt: null,
    destroyedAt: null,
    createdAt: now,
    error: null,
    snapshots: [],
  };
  if (imageRef) sandbox.imageRef = imageRef;
  return sandbox;
}

export function simulateSession(ctx: HandlerContext, request: SimulateRequest): SimulateResult {
  if (!ctx.tenancy.scopes.has('control')) throw new ServiceError('permission_denied', 'simulating a session needs the control scope');
  const environmentId = environmentOf(ctx);
  const result = writeTx(ctx.db, () => {
    const agent = latestVersion(ctx.db, environmentId, request.agent);
    const sessionId = newId('ses');
    const now = nowIso();
    const identity: Identity | undefined = request.identity && { ...request.identity, display: request.identity.id, attributes: {} };
    ctx.db
      .prepare('INSERT INTO sessions (id, environment_id, agent_id, agent_version, identity, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(sessionId, environmentId, agent.agentId, agent.version, identity ? JSON.stringify(identity) : null, now);
    const hookTargets = connectionsOf(ctx.db, environmentId)
      .filter((c) => c.hooks_url !== null || ctx.profile.deliverWithoutHooksUrl)
      .map((c) => ({ id: c.id, name: c.name, hookEvents: new Set(parseJson<string[]>(c.hook_events, [])) }));
    const events: SessionEvent[] = [];
    const deliveries: string[] = [];
    (request.events ?? DEFAULT_EVENTS).forEach((type, index) => {
      const event: SessionEvent = { seq: index + 1, sessionId, at: now, type, agentVersion: agent.version };
      if (identity) event.identity = identity;
      ctx.db.prepare('INSERT INTO session_events (session_id, seq, type, at) VALUES (?, ?, ?, ?)').run(sessionId, event.seq, type, now);
      events.push(event);
      for (const target of hookTargets) {
        if (!target.hookEvents.has(type)) continue;
        deliveries.push(
          enqueueDelivery(ctx.db, {
            environmentId,
            sessionId,
            connectionId: target.id,
            connectionName: target.name,
            eventSeq: event.seq,
            eventType: type,
            payload: { event, agent: request.agent },
          }),
        );
      }
    });
    const decisions = agent.definition.policies?.decisions;
    const pending: string[] = [];
    for (let i = 0; i < (request.pending ?? 0); i++) {
      const call: PendingToolCall = {
        toolCallId: newId('call'),
        name: agent.definition.tools?.[i % Math.max(1, agent.definition.tools.length)]?.name ?? 'tool',
        connection: agent.definition.policies?.toolCalls?.hook?.connection ?? '',
        prompt: `simulated call ${i + 1}`,
        channel: 'default',
        parentToolCallId: null,
        input: { n: i + 1 },
        requestedBy: 'hook',
        requestedAt: now,
        expiresAt: new Date(Date.parse(now) + (decisions?.expiresInSeconds ?? 300) * 1000).toISOString(),
      };
      ctx.db
        .prepare('INSERT INTO pending_tool_calls (tool_call_id, session_id, record) VALUES (?, ?, ?)')
        .run(call.toolCallId, sessionId, JSON.stringify(call));
      pending.push(call.toolCallId);
    }
    if (request.usage) {
      if (!ctx.tenancy.keyId) throw new ServiceError('failed_precondition', 'usage is recorded per API key: simulate with a key, not a cookie');
      const { at, ...totals } = request.usage;
      ctx.db
        .prepare('INSERT INTO usage_rows (environment_id, key_id, at, totals) VALUES (?, ?, ?, ?)')
        .run(environmentId, ctx.tenancy.keyId, at ? new Date(at).toISOString() : now, JSON.stringify(totals));
    }
    const sandboxes: string[] = [];
    for (let i = 0; i < (request.sandboxes ?? 0); i++) {
      const record = sandboxRecord(sessionId, undefined, now);
      ctx.db
        .prepare('INSERT INTO sandboxes (id, environment_id, record, created_at) VALUES (?, ?, ?, ?)')
        .run(record.id, environmentId, JSON.stringify(record), now);
      sandboxes.push(record.id);
    }
    return { sessionId, agentVersion: agent.version, events, deliveries, pending, sandboxes };
  });
  if (result.deliveries.length > 0) ctx.services.wakeHooks();
  return result;
}
