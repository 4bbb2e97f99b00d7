// `agentform history`: one row per version, newest first, with where each was promoted from.
import type { PromotedFrom } from '../model/api.js';
import { renderTable } from './table.js';

export interface HistoryRow {
  version: number;
  createdAt: string | null;
  image: string | null;
  /** With the source environment's agentform name, when it could be learned. */
  promotedFrom: (PromotedFrom & { environment: string | null }) | null;
}

export function renderHistory(agent: string, rows: readonly HistoryRow[]): string {
  return renderTable(
    ['VERSION', 'CREATED', 'IMAGE', 'PROMOTED FROM'],
    rows.map((row) => [
      `v${row.version}`,
      row.createdAt ?? '-',
      row.image ?? '-',
      row.promotedFrom
        ? `${row.promotedFrom.environment ?? row.promotedFrom.environmentId}/${agent} v${row.promotedFrom.version} (agent ${row.promotedFrom.agentId})`
        : '-',
    ]),
  );
}
