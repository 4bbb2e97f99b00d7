import { visible } from './visible.js';

/** Aligned columns; the last column is not padded. Cells hold names from servers and files: their controls are made visible. */
export function renderTable(headers: string[], rawRows: string[][]): string {
  const rows = rawRows.map((row) => row.map(visible));
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}
