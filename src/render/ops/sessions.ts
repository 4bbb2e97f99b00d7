// Tables for `agentform sessions events` and `agentform sessions pending`.
import type { PendingToolCall, SessionEvent } from '../../model/api.js';
import { formatIdentity, formatTable, formatTime, formatUntil, orNone } from './format.js';

/**
 * Keeps the events whose type is in `types`; a pattern ending in `*` matches a prefix
 * (`session.*`). No patterns keeps everything.
 */
export function filterEvents(events: readonly SessionEvent[], types: readonly string[]): SessionEvent[] {
  if (types.length === 0) return [...events];
  const matchers = types.map((type) => (type.endsWith('*') ? (value: string) => value.startsWith(type.slice(0, -1)) : (value: string) => value === type));
  return events.filter((event) => matchers.some((matches) => matches(event.type)));
}

const EVENT_COLUMNS = [
  { header: 'SEQ', align: 'right' as const },
  { header: 'TIME' },
  { header: 'TYPE' },
  { header: 'AGENT VERSION', align: 'right' as const },
  { header: 'IDENTITY' },
];

function eventCells(event: SessionEvent): string[] {
  return [
    String(event.seq),
    formatTime(event.at),
    event.type,
    event.agentVersion === undefined ? '-' : `v${event.agentVersion}`,
    formatIdentity(event.identity),
  ];
}

export function renderEvents(events: readonly SessionEvent[]): string {
  if (events.length === 0) return 'No events.';
  return formatTable(EVENT_COLUMNS, [...events].sort((a, b) => a.seq - b.seq).map(eventCells));
}

/** One event as a line of its own, for --follow (widths cannot be known in advance). */
export function renderEventLine(event: SessionEvent): string {
  const [seq, time, type, version, identity] = eventCells(event);
  return `#${seq}  ${time}  ${type}  ${version}  ${identity}`;
}

export function renderPending(calls: readonly PendingToolCall[], now: Date): string {
  if (calls.length === 0) return 'No pending tool calls.';
  return formatTable(
    [{ header: 'TOOL CALL' }, { header: 'TOOL' }, { header: 'CONNECTION' }, { header: 'REQUESTED BY' }, { header: 'REQUESTED' }, { header: 'EXPIRES' }],
    calls.map((call) => [
      call.toolCallId,
      call.name,
      orNone(call.connection),
      orNone(call.requestedBy),
      formatTime(call.requestedAt),
      formatUntil(call.expiresAt, now, 'ago (expired)'),
    ]),
  );
}
