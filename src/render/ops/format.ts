// Shared pieces of the operations tables: aligned columns that ignore colour codes, and the few
// value formats every table uses. Pure: time comes in as `now`, colour as a Palette.

import { visible } from '../visible.js';

export type Align = 'left' | 'right';

export interface Column {
  header: string;
  align?: Align;
}

/**
 * A cell coloured by the renderer. Cells are made visible (visible.ts) before they are painted, so
 * the table's own colours survive and no colour or cursor code can come from a server's text.
 */
export interface PaintedCell {
  text: string;
  paint: (text: string) => string;
}

export type Cell = string | PaintedCell;

function shownCell(cell: Cell): string {
  return typeof cell === 'string' ? visible(cell) : cell.paint(visible(cell.text));
}

const ANSI = /\u001b\[[0-9;]*m/g;

export function visibleLength(text: string): number {
  return [...text.replace(ANSI, '')].length;
}

function pad(text: string, width: number, align: Align): string {
  const fill = ' '.repeat(Math.max(0, width - visibleLength(text)));
  return align === 'right' ? fill + text : text + fill;
}

/** Aligned columns separated by two spaces; the last column is not padded (no trailing blanks). */
export function formatTable(columns: Column[], table: Cell[][]): string {
  const rows = table.map((row) => row.map(shownCell));
  const widths = columns.map((column, index) => Math.max(visibleLength(column.header), ...rows.map((row) => visibleLength(row[index] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((cell, index) => {
        const align = columns[index]?.align ?? 'left';
        const last = index === cells.length - 1;
        return last && align === 'left' ? cell : pad(cell, widths[index] ?? 0, align);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.header)), ...rows.map(line)].join('\n');
}

/** `label: value` lines for one object, labels aligned. Absent values are left out. */
export function formatFields(fields: Array<[string, string | undefined]>): string {
  const present = fields.filter((field): field is [string, string] => field[1] !== undefined && field[1] !== '');
  const width = Math.max(0, ...present.map(([label]) => label.length + 1));
  return present.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${visible(value)}`).join('\n');
}

export const NONE = '-';

export function orNone(value: string | number | null | undefined): string {
  return value === undefined || value === null || value === '' ? NONE : String(value);
}

/** 1234567 → "1,234,567" (fixed locale: output must not depend on the machine). */
export function formatCount(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return NONE;
  return Math.round(value).toLocaleString('en-US');
}

export function formatUsd(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return NONE;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** A share as a whole percentage; below 1 % but above zero shows "<1%". */
export function formatShare(share: number | undefined): string {
  if (share === undefined || !Number.isFinite(share)) return NONE;
  if (share > 0 && share < 0.01) return '<1%';
  return `${Math.round(share * 100)}%`;
}

/** 75_000 ms → "1m 15s": the largest unit and the next one when it is not zero. */
export function formatDuration(ms: number): string {
  const seconds = Math.floor(Math.abs(ms) / 1000);
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ];
  const first = units.findIndex(([, size]) => seconds >= size);
  if (first === -1) return '0s';
  const [unit, size] = units[first] as [string, number];
  const parts = [`${Math.floor(seconds / size)}${unit}`];
  const next = units[first + 1];
  if (next) {
    const amount = Math.floor((seconds % size) / next[1]);
    if (amount > 0) parts.push(`${amount}${next[0]}`);
  }
  return parts.join(' ');
}

/** "in 4m 12s" / "expired 3m ago" style, relative to now. */
export function formatUntil(iso: string | null | undefined, now: Date, pastWord = 'ago'): string {
  if (!iso) return NONE;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const delta = at - now.getTime();
  return delta >= 0 ? `in ${formatDuration(delta)}` : `${formatDuration(delta)} ${pastWord}`;
}

/** "12m ago (2026-05-17T09:18:00Z)": how long, then when. */
export function formatSince(iso: string | null | undefined, now: Date): string {
  if (!iso) return NONE;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  return `${formatDuration(now.getTime() - at)} ago`;
}

/** RFC 3339 without milliseconds: the tables are for reading, --json keeps the exact value. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return NONE;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function formatIdentity(identity: { scope: string; id: string; display?: string } | undefined): string {
  if (!identity) return NONE;
  const who = `${identity.scope}:${identity.id}`;
  return identity.display && identity.display !== identity.id ? `${who} (${identity.display})` : who;
}

/** One line of free text for a table cell: newlines folded, long text cut with an ellipsis. */
export function oneLine(text: string | null | undefined, max = 60): string {
  if (!text) return NONE;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
