// Multi-line strings (system prompts, compaction prompts) are shown as a unified line diff: only
// the hunks, no file headers.
import { createRequire } from 'node:module';
import type { JsonValue } from '../model/resources.js';

// diff (19 modules) is loaded on the first line diff: most plans show none (a no-change plan of
// 20 agents loaded it for nothing). Its CommonJS build, so that rendering stays synchronous.
type DiffModule = typeof import('diff');
let diffModule: DiffModule | undefined;
const diffLibrary = (): DiffModule => (diffModule ??= createRequire(import.meta.url)('diff') as DiffModule);

export function isMultiline(value: JsonValue | undefined): value is string {
  return typeof value === 'string' && value.includes('\n');
}

/** Texts longer than this (lines, both sides) are not line-diffed: the cost grows with their product. */
const MAX_DIFF_LINES = 20_000;
/** Beyond this many changed lines a line diff gives up (it would not be read anyway). */
const MAX_EDIT_LENGTH = 1_000;

/** `@@ -a,b +c,d @@` headers and ` `/`-`/`+` lines, for two versions of a text. */
export function unifiedHunks(before: string, after: string, context = 3): string[] {
  const patch = diffLibrary().structuredPatch('before', 'after', before, after, undefined, undefined, { context, maxEditLength: MAX_EDIT_LENGTH });
  if (!patch) return [`(more than ${MAX_EDIT_LENGTH} lines changed: too many for a line diff; plan --json shows the whole value)`];
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) if (!line.startsWith('\\')) lines.push(line);
  }
  return lines;
}

/** Whether a field change is best shown as a line diff. */
export function wantsLineDiff(before: JsonValue | undefined, after: JsonValue | undefined): before is string {
  if (typeof before !== 'string' || typeof after !== 'string' || !(isMultiline(before) || isMultiline(after))) return false;
  return lineCount(before) + lineCount(after) <= MAX_DIFF_LINES;
}

function lineCount(text: string): number {
  let count = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}
