// Tables for `agentform hooks redeliver`.
import type { HookDelivery } from '../../model/api.js';
import { formatFields, formatTime, formatUntil, oneLine, orNone, plural } from './format.js';

export function renderDelivery(delivery: HookDelivery, now: Date): string {
  return formatFields([
    ['Delivery', delivery.id],
    ['Status', delivery.status],
    ['Session', delivery.sessionId],
    ['Connection', delivery.connectionName ? `${delivery.connectionName} (${delivery.connectionId})` : delivery.connectionId],
    ['Event', `#${delivery.eventSeq} ${delivery.eventType}`],
    ['Attempts', String(delivery.attempts)],
    ['Next attempt', delivery.nextAttemptAt ? `${formatTime(delivery.nextAttemptAt)} (${formatUntil(delivery.nextAttemptAt, now)})` : undefined],
    ['Delivered', delivery.deliveredAt ? formatTime(delivery.deliveredAt) : undefined],
    ['Last error', delivery.lastError ? oneLine(delivery.lastError, 120) : undefined],
  ]);
}

export interface RedeliverAllOutcome {
  /** Deliveries put back in the queue, summed over every call. */
  requeued: number;
  /** hooks.redeliverAll calls made. */
  calls: number;
  /** Whether the server still reported more when we stopped. */
  more: boolean;
}

export function renderRedeliverAll(outcome: RedeliverAllOutcome): string {
  const requeued = `Requeued ${plural(outcome.requeued, 'delivery', 'deliveries')} in ${plural(outcome.calls, 'call')}.`;
  return outcome.more ? `${requeued} More remain.` : requeued;
}

/** One progress line (TTY only): how far the bulk redelivery has got. */
export function renderRedeliverProgress(requeued: number, calls: number, maxCalls: number): string {
  return `Requeued ${orNone(requeued)} so far (call ${calls} of at most ${maxCalls})…`;
}
