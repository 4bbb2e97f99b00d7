// `agentform usage`: one row per key with its totals and each total as a share of the key's spend
// caps. The shares are computed here (pure) and shared by the table, CSV and JSON outputs.
//   tokens   (inputTokens + outputTokens)        / spend.tokensPerMonth
//   minutes  (activeSeconds / 60)                / spend.agentMinutesPerMonth
//   cost     costUsd / (spend.dailyUsd × the number of started days in the period)
// Monthly caps are compared with the period's totals as they are: with the default period
// (this month so far) that is how much of this month's allowance a key has used.
import type { KeyUsageRow } from '../../model/api.js';
import { PLAIN, type Palette } from '../palette.js';
import { formatCount, formatShare, formatTable, formatUsd, type Cell } from './format.js';

/** A key whose use reaches this share of any cap is highlighted. */
export const HIGHLIGHT_SHARE = 0.8;

export interface UsageShares {
  tokens: number | null;
  agentMinutes: number | null;
  dailyUsd: number | null;
}

export interface KeyUsage {
  row: KeyUsageRow;
  tokens: number;
  agentMinutes: number;
  shares: UsageShares;
  /** True when any share is at or above HIGHLIGHT_SHARE. */
  nearCap: boolean;
}

function share(used: number, cap: number | undefined): number | null {
  return cap === undefined || !(cap > 0) ? null : used / cap;
}

export function computeUsage(rows: readonly KeyUsageRow[], periodDays: number): KeyUsage[] {
  return rows.map((row) => {
    const totals = row.totals;
    const tokens = (totals.inputTokens ?? 0) + (totals.outputTokens ?? 0);
    const agentMinutes = (totals.activeSeconds ?? 0) / 60;
    const dailyCap = row.spend?.dailyUsd;
    const shares: UsageShares = {
      tokens: share(tokens, row.spend?.tokensPerMonth),
      agentMinutes: share(agentMinutes, row.spend?.agentMinutesPerMonth),
      dailyUsd: share(totals.costUsd ?? 0, dailyCap === undefined ? undefined : dailyCap * periodDays),
    };
    const nearCap = Object.values(shares).some((value) => value !== null && value >= HIGHLIGHT_SHARE);
    return { row, tokens, agentMinutes, shares, nearCap };
  });
}

function shareCell(value: number | null, palette: Palette): Cell {
  if (value === null) return '-';
  const text = formatShare(value);
  return value >= HIGHLIGHT_SHARE ? { text: `${text}!`, paint: palette.warn } : text;
}

export function renderUsageTable(usage: readonly KeyUsage[], period: { from: string; to: string }, palette: Palette = PLAIN): string {
  const heading = `Usage from ${period.from} to ${period.to}`;
  if (usage.length === 0) return `${heading}\n\nNo keys.`;
  const table = formatTable(
    [
      { header: 'KEY' },
      { header: 'PREFIX' },
      { header: 'TOKENS', align: 'right' },
      { header: 'TURNS', align: 'right' },
      { header: 'MODEL CALLS', align: 'right' },
      { header: 'TOOL CALLS', align: 'right' },
      { header: 'MINUTES', align: 'right' },
      { header: 'COST', align: 'right' },
      { header: 'TOKEN CAP', align: 'right' },
      { header: 'MINUTE CAP', align: 'right' },
      { header: 'DAILY $ CAP', align: 'right' },
    ],
    usage.map((item) => {
      const name = item.row.revoked ? `${item.row.name} (revoked)` : item.row.name;
      return [
        item.nearCap ? { text: name, paint: palette.warn } : name,
        item.row.prefix ?? '-',
        formatCount(item.tokens),
        formatCount(item.row.totals.turns),
        formatCount(item.row.totals.modelCalls),
        formatCount(item.row.totals.toolCalls),
        formatCount(item.agentMinutes),
        formatUsd(item.row.totals.costUsd),
        shareCell(item.shares.tokens, palette),
        shareCell(item.shares.agentMinutes, palette),
        shareCell(item.shares.dailyUsd, palette),
      ];
    }),
  );
  const near = usage.filter((item) => item.nearCap).length;
  const notes = [`Caps: tokens and minutes per month, dollars per day over the period's days; "-" = no cap.`];
  if (near > 0) notes.unshift(palette.warn(`! ${near} key${near === 1 ? ' is' : 's are'} at or over ${HIGHLIGHT_SHARE * 100} % of a spend cap.`));
  return `${heading}\n\n${table}\n\n${notes.join('\n')}`;
}

const CSV_COLUMNS = [
  'keyId',
  'name',
  'prefix',
  'revoked',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'turns',
  'modelCalls',
  'toolCalls',
  'serverToolRequests',
  'activeSeconds',
  'costUsd',
  'unpricedCalls',
  'tokensPerMonth',
  'agentMinutesPerMonth',
  'dailyUsd',
  'tokensShare',
  'agentMinutesShare',
  'dailyUsdShare',
  'nearCap',
] as const;

/** RFC 4180: quote a field holding a comma, quote or line break; double the quotes inside. */
function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function renderUsageCsv(usage: readonly KeyUsage[]): string {
  const lines = usage.map((item) => {
    const { row, shares } = item;
    const t = row.totals;
    const values: Record<(typeof CSV_COLUMNS)[number], string | number | boolean | null | undefined> = {
      keyId: row.keyId,
      name: row.name,
      prefix: row.prefix,
      revoked: row.revoked === true,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      cacheReadTokens: t.cacheReadTokens,
      cacheWriteTokens: t.cacheWriteTokens,
      turns: t.turns,
      modelCalls: t.modelCalls,
      toolCalls: t.toolCalls,
      serverToolRequests: t.serverToolRequests,
      activeSeconds: t.activeSeconds,
      costUsd: t.costUsd,
      unpricedCalls: t.unpricedCalls,
      tokensPerMonth: row.spend?.tokensPerMonth,
      agentMinutesPerMonth: row.spend?.agentMinutesPerMonth,
      dailyUsd: row.spend?.dailyUsd,
      tokensShare: shares.tokens === null ? null : round(shares.tokens),
      agentMinutesShare: shares.agentMinutes === null ? null : round(shares.agentMinutes),
      dailyUsdShare: shares.dailyUsd === null ? null : round(shares.dailyUsd),
      nearCap: item.nearCap,
    };
    return CSV_COLUMNS.map((column) => csvField(values[column])).join(',');
  });
  return [CSV_COLUMNS.join(','), ...lines].join('\r\n');
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** The --json shape: the API rows as they came, plus the computed shares. */
export function usageJson(usage: readonly KeyUsage[], period: { from: string; to: string }): unknown {
  return {
    period,
    highlightShare: HIGHLIGHT_SHARE,
    keys: usage.map((item) => ({ ...item.row, shares: item.shares, nearCap: item.nearCap })),
  };
}
