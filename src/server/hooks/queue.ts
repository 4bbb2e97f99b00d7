// The hook delivery queue in SQLite. Statuses: pending (waiting for its nextAttemptAt), sending
// (claimed by one worker), delivered, dead (gave up after maxAttempts). Claiming is a conditional
// UPDATE, so two server processes on one data dir never send the same attempt twice.
import type { HookDelivery } from '../../model/api.js';
import type { Db } from '../store/db.js';
import { writeTx } from '../store/db.js';
import { cipherOf } from '../store/sealed.js';
import { newId, nowIso, parseJson } from '../util.js';

export interface DeliveryRow {
  id: string;
  environment_id: string;
  session_id: string;
  connection_id: string;
  connection_name: string;
  event_seq: number;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  last_error: string | null;
  payload: string;
}

/** A claim older than this is assumed abandoned (its process died mid-send) and is retried. */
const STALE_CLAIM_MS = 60_000;
export const REDELIVER_BATCH = 100;

export function toDelivery(row: DeliveryRow): HookDelivery {
  return {
    id: row.id,
    sessionId: row.session_id,
    connectionId: row.connection_id,
    connectionName: row.connection_name,
    eventSeq: row.event_seq,
    eventType: row.event_type,
    // `sending` is internal: to a reader an in-flight attempt is still pending.
    status: row.status === 'sending' ? 'pending' : row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    lastError: row.last_error,
    payload: parseJson<unknown>(row.payload, null),
  };
}

export function enqueueDelivery(
  db: Db,
  input: { environmentId: string; sessionId: string; connectionId: string; connectionName: string; eventSeq: number; eventType: string; payload: unknown },
): string {
  const id = newId('hkd');
  const now = nowIso();
  db.prepare(
    `INSERT INTO hook_deliveries (id, environment_id, session_id, connection_id, connection_name, event_seq, event_type, status, attempts, next_attempt_at, created_at, payload)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
  ).run(
    id,
    input.environmentId,
    input.sessionId,
    input.connectionId,
    input.connectionName,
    input.eventSeq,
    input.eventType,
    now,
    now,
    JSON.stringify({ deliveryId: id, ...(input.payload as object) }),
  );
  return id;
}

export function deliveryRow(db: Db, environmentId: string, id: string): DeliveryRow | undefined {
  return db.prepare('SELECT * FROM hook_deliveries WHERE id = ? AND environment_id = ?').get(id, environmentId) as DeliveryRow | undefined;
}

export interface ClaimedDelivery {
  row: DeliveryRow;
  url: string | null;
  signingSecret: string | null;
}

/** Claims up to `limit` due deliveries for this worker. */
export function claimDue(db: Db, limit: number): ClaimedDelivery[] {
  return writeTx(db, () => {
    const now = new Date();
    const staleBefore = new Date(now.getTime() - STALE_CLAIM_MS).toISOString();
    const rows = db
      .prepare(
        `SELECT * FROM hook_deliveries WHERE (status = 'pending' AND next_attempt_at <= ?) OR (status = 'sending' AND next_attempt_at <= ?)
         ORDER BY next_attempt_at LIMIT ?`,
      )
      .all(now.toISOString(), staleBefore, limit) as DeliveryRow[];
    const claim = db.prepare("UPDATE hook_deliveries SET status = 'sending', next_attempt_at = ? WHERE id = ?");
    const target = db.prepare('SELECT hooks_url, signing_secret FROM connections WHERE id = ?');
    return rows.map((row) => {
      claim.run(now.toISOString(), row.id);
      const connection = target.get(row.connection_id) as { hooks_url: string | null; signing_secret: string | null } | undefined;
      const signingSecret = connection?.signing_secret ? cipherOf(db).open('connections.signing_secret', connection.signing_secret) : null;
      return { row, url: connection?.hooks_url ?? null, signingSecret };
    });
  });
}

export function recordAttempt(db: Db, id: string, outcome: { ok: true } | { ok: false; error: string; retryInMs: number | null }): void {
  writeTx(db, () => {
    const now = nowIso();
    if (outcome.ok) {
      db.prepare(
        "UPDATE hook_deliveries SET status = 'delivered', attempts = attempts + 1, delivered_at = ?, next_attempt_at = NULL, last_error = NULL WHERE id = ?",
      ).run(now, id);
    } else if (outcome.retryInMs === null) {
      db.prepare("UPDATE hook_deliveries SET status = 'dead', attempts = attempts + 1, next_attempt_at = NULL, last_error = ? WHERE id = ?").run(
        outcome.error,
        id,
      );
    } else {
      const next = new Date(Date.now() + outcome.retryInMs).toISOString();
      db.prepare("UPDATE hook_deliveries SET status = 'pending', attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?").run(
        next,
        outcome.error,
        id,
      );
    }
  });
}

/** Puts one delivery back in the queue now; attempts are kept. */
export function requeue(db: Db, id: string): void {
  db.prepare("UPDATE hook_deliveries SET status = 'pending', next_attempt_at = ?, delivered_at = NULL WHERE id = ?").run(nowIso(), id);
}

/** Requeues up to REDELIVER_BATCH dead deliveries of the environment; `more` when some remain. */
export function requeueDead(db: Db, environmentId: string): { requeued: number; more: boolean } {
  return writeTx(db, () => {
    const ids = (
      db
        .prepare("SELECT id FROM hook_deliveries WHERE environment_id = ? AND status = 'dead' ORDER BY created_at, id LIMIT ?")
        .all(environmentId, REDELIVER_BATCH) as Array<{ id: string }>
    ).map((r) => r.id);
    for (const id of ids) requeue(db, id);
    const left = db.prepare("SELECT COUNT(*) AS n FROM hook_deliveries WHERE environment_id = ? AND status = 'dead'").get(environmentId) as { n: number };
    return { requeued: ids.length, more: left.n > 0 };
  });
}
