// sessions.* and sandboxes.*: read-only views of what the dev simulator recorded.
import type { Identity, PendingToolCall, Sandbox, SessionEvent } from '../../model/api.js';
import type { Rpc } from '../../api/operations.js';
import { environmentOf, type HandlerContext } from '../context.js';
import { notFound } from '../service-error.js';
import { parseJson } from '../util.js';
import type { Handlers } from './types.js';

function sessionOf(ctx: HandlerContext, id: string): { id: string; agent_version: number; identity: string | null } {
  const row = ctx.db.prepare('SELECT id, agent_version, identity FROM sessions WHERE id = ? AND environment_id = ?').get(id, environmentOf(ctx)) as
    | { id: string; agent_version: number; identity: string | null }
    | undefined;
  if (!row) throw notFound(`session ${id}`);
  return row;
}

export const sessions: Handlers<Extract<Rpc, `sessions.${string}` | `sandboxes.${string}`>> = {
  'sessions.events': (ctx, body) => {
    const session = sessionOf(ctx, body.id);
    const identity = parseJson<Identity | null>(session.identity, null);
    const rows = ctx.db.prepare('SELECT seq, type, at FROM session_events WHERE session_id = ? ORDER BY seq').all(session.id) as Array<{
      seq: number;
      type: string;
      at: string;
    }>;
    return rows.map((row): SessionEvent => {
      const event: SessionEvent = { seq: row.seq, sessionId: session.id, at: row.at, type: row.type, agentVersion: session.agent_version };
      if (identity) event.identity = identity;
      return event;
    });
  },
  'sessions.pending': (ctx, body) => {
    const session = sessionOf(ctx, body.id);
    const rows = ctx.db.prepare('SELECT record FROM pending_tool_calls WHERE session_id = ? ORDER BY rowid').all(session.id) as Array<{ record: string }>;
    return rows.map((row) => parseJson<PendingToolCall>(row.record, { toolCallId: '', name: '' }));
  },
  'sandboxes.list': (ctx) =>
    (ctx.db.prepare('SELECT record FROM sandboxes WHERE environment_id = ? ORDER BY created_at, id').all(environmentOf(ctx)) as Array<{ record: string }>).map(
      (row) => parseJson<Sandbox>(row.record, { id: '', state: 'error' }),
    ),
};
