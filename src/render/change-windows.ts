// plan's report of the change windows open now: an apply now would be refused (not an error: the
// plan itself writes nothing). Text, Markdown (the pull-request comment) and JSON (`openChangeWindows`).
import { type BreakGlass, describeOpenWindow, type OpenWindow } from '../engine/change-windows.js';
import { formatLocation } from '../errors.js';
import { fenced } from './markdown.js';
import { code } from './values.js';
import type { Palette } from './palette.js';
import { visible } from './visible.js';

function headline(environment: string, open: readonly OpenWindow[]): string {
  const windows = open.length === 1 ? 'a change window is' : `${open.length} change windows are`;
  return `An apply to ${environment} now would be refused: ${windows} open (--break-glass "REASON" lets an emergency through, recorded)`;
}

export function changeWindowsText(environment: string, open: readonly OpenWindow[], palette: Palette): string[] {
  if (open.length === 0) return [];
  return [palette.warn(headline(environment, open)), ...open.map((window) => `  ${visible(describeOpenWindow(window))}`)];
}

export function changeWindowsMarkdown(environment: string, open: readonly OpenWindow[]): string[] {
  if (open.length === 0) return [];
  return [`> 🚫 **${headline(environment, open)}**`, '', fenced(open.map(describeOpenWindow).join('\n')), ''];
}

export function changeWindowsJson(open: readonly OpenWindow[]): Array<Record<string, string>> {
  return open.map(({ window, endsAt }) => ({
    name: window.name,
    reason: window.reason,
    endsAt: endsAt.toISOString(),
    ...(window.location ? { location: formatLocation(window.location) } : {}),
  }));
}

/** A table cell of user text: code, its pipes escaped (GitHub splits a row at every other pipe, code or not). */
function cell(text: string): string {
  return code(text).replace(/\|/g, '\\|');
}

/** A change let through a window with --break-glass, for the CI job's Markdown summary. */
export function breakGlassMarkdown(command: string, environment: string, record: BreakGlass): string {
  const windows = record.windows.map((window) => `${window.name} (${window.reason}) until ${window.endsAt}`);
  return [
    `### 🔨 Break glass: ${code(command)} to ${code(environment)} inside a change window`,
    '',
    '| who | why | when |',
    '|---|---|---|',
    `| ${cell(record.actor)} | ${cell(record.reason)} | ${record.at} |`,
    '',
    fenced(windows.join('\n')),
    '',
  ].join('\n');
}
