// Text for the tool-surface lock: the tool-level diff of one connection, the `plan --check-tools`
// section and its JSON form. No I/O; the palette decides colours.
import type { SurfaceDiff, ToolSurfaceReport } from '../engine/tool-surface.js';
import type { LockedTool, ToolAnnotations } from '../model/tool-lock.js';
import { PLAIN, type Palette } from './palette.js';

/** `destructive, open-world`: the hints that are true, read-only first (it overrides the others in MCP). */
export function hintWords(annotations: ToolAnnotations): string {
  if (annotations.readOnlyHint) return 'read-only';
  const words: string[] = [];
  if (annotations.destructiveHint) words.push('destructive');
  if (annotations.idempotentHint) words.push('idempotent');
  if (annotations.openWorldHint) words.push('open-world');
  return words.length === 0 ? 'no hints' : words.join(', ');
}

function toolLine(sign: string, tool: LockedTool): string {
  return `    ${sign} ${tool.name} (${hintWords(tool.annotations)})`;
}

/**
 * ```
 *   connection github:
 *     + delete_repo (destructive, open-world)   added
 *     - old_search (read-only)                  removed
 *     ~ create_issue: description or input schema changed
 *     ~ search: destructiveHint false → true
 * ```
 */
export function renderSurfaceDiff(connection: string, diff: SurfaceDiff, palette: Palette = PLAIN): string {
  const lines = [`  connection ${connection}:`];
  for (const tool of diff.added) lines.push(palette.add(`${toolLine('+', tool)}  added`));
  for (const tool of diff.removed) lines.push(palette.remove(`${toolLine('-', tool)}  removed`));
  for (const tool of diff.changed) {
    const parts: string[] = [];
    if (tool.definitionChanged) parts.push('description or input schema changed');
    for (const change of tool.annotations) parts.push(`${change.hint} ${change.before} → ${change.after}`);
    lines.push(palette.change(`    ~ ${tool.name}: ${parts.join('; ')}`));
  }
  return lines.join('\n');
}

export function renderToolSurfaceReport(report: ToolSurfaceReport, palette: Palette = PLAIN): string {
  if (!report.checked) return `Tool surface: not checked (${report.reason}).`;
  if (report.connections.length === 0) return 'Tool surface: no connections in this environment.';
  const lines: string[] = [];
  const differing = report.connections.filter((check) => check.status === 'differs').length;
  lines.push(
    differing > 0
      ? palette.warn(`Tool surface: ${differing} connection(s) differ from agentform.lock.yaml.`)
      : 'Tool surface: checked against agentform.lock.yaml.',
  );
  for (const check of report.connections) {
    if (check.status === 'differs' && check.diff) lines.push(renderSurfaceDiff(check.connection, check.diff, palette));
    else if (check.status === 'same') lines.push(`  connection ${check.connection}: matches the lock`);
    else if (check.status === 'unlocked') lines.push(`  connection ${check.connection}: not locked yet (apply or \`agentform lock\` records it)`);
    else if (check.status === 'missing') lines.push(`  connection ${check.connection}: not created yet`);
    else lines.push(palette.warn(`  connection ${check.connection}: could not read its tools: ${check.error ?? 'unknown error'}`));
  }
  if (differing > 0) lines.push('  To accept: review, then `agentform lock --update` and commit agentform.lock.yaml.');
  return lines.join('\n');
}

/** The JSON form (the plan's `toolSurface`): statuses and diffs; live surfaces are left out. */
export function toolSurfaceJson(report: ToolSurfaceReport): Record<string, unknown> {
  if (!report.checked) return { checked: false, reason: report.reason };
  return {
    checked: true,
    connections: report.connections.map((check) => ({
      connection: check.connection,
      status: check.status,
      ...(check.diff ? { diff: check.diff } : {}),
      ...(check.error !== undefined ? { error: check.error } : {}),
    })),
  };
}
