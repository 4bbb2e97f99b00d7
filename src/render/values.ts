// How a single value is printed inside a plan: JSON, on one line. Long values are cut (a 5 MB
// prompt must not become a 5 MB plan on a terminal or in a pull-request comment); the JSON plan
// keeps every value whole, and the cut says so.
import type { JsonValue } from '../model/resources.js';
import { visible } from './visible.js';

/** Characters of one value or line shown before it is cut. */
export const SHOWN_CHARS = 400;
/** Lines of one multi-line value or line diff shown before the rest is cut. */
export const SHOWN_LINES = 60;

export function formatValue(value: JsonValue | undefined): string {
  if (value === undefined) return '(absent)';
  // JSON escapes C0 controls but not DEL, C1 or the bidi controls.
  return visible(clipText(JSON.stringify(value)));
}

/** `text`, or its first SHOWN_CHARS characters and a note of how much was left out. */
export function clipText(text: string, max = SHOWN_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters; plan --json shows the whole value)`;
}

/** The first SHOWN_LINES lines, each clipped and its controls made visible, and a note line for the rest. */
export function clipLines(lines: readonly string[], max = SHOWN_LINES): string[] {
  const shown = lines.slice(0, max).map((line) => visible(clipText(line)));
  if (lines.length > max) shown.push(`… (${lines.length - max} more lines; plan --json shows the whole value)`);
  return shown;
}

/** Inline code that survives backticks in the text; controls are made visible (no line can be forged). */
export function code(raw: string): string {
  const text = visible(raw);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longest + 1);
  return longest > 0 ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`;
}
