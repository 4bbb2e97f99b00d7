// Multi-line strings (system prompts, compaction prompts) are shown as a unified line diff: only
// the hunks, no file headers.
import { structuredPatch } from 'diff';
import type { JsonValue } from '../model/resources.js';

export function isMultiline(value: JsonValue | undefined): value is string {
  return typeof value === 'string' && value.includes('\n');
}

/** `@@ -a,b +c,d @@` headers and ` `/`-`/`+` lines, for two versions of a text. */
export function unifiedHunks(before: string, after: string, context = 3): string[] {
  const patch = structuredPatch('before', 'after', before, after, undefined, undefined, { context });
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) if (!line.startsWith('\\')) lines.push(line);
  }
  return lines;
}

/** Whether a field change is best shown as a line diff. */
export function wantsLineDiff(before: JsonValue | undefined, after: JsonValue | undefined): before is string {
  return typeof before === 'string' && typeof after === 'string' && (isMultiline(before) || isMultiline(after));
}
