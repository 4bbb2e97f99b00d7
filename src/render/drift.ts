// `agentform drift`: three groups (changed outside, unmanaged, ignored) as text, Markdown for a CI
// job summary or an issue, or JSON (docs/drift.md documents the shape).
import { type DriftReport, hasDrift } from '../engine/drift.js';
import { IGNORED_HEADING, ignoredLines, ignoredTextBlock } from './ignored.js';
import { escapeHtml, fenced } from './markdown.js';
import { PLAIN, type Palette } from './palette.js';
import { fieldLines } from './text.js';
import { renderToolSurfaceReport, toolSurfaceJson } from './tool-surface.js';
import { code } from './values.js';
import { visible } from './visible.js';

export const DRIFT_FORMAT_VERSION = 1;

function countsLine(report: DriftReport): string {
  const { changed, unmanaged, ignored } = report;
  return `${changed.length} changed outside, ${unmanaged.length} unmanaged, ${ignored.length} ignored`;
}

export function driftSummaryLine(report: DriftReport): string {
  return hasDrift(report)
    ? `Drift in ${report.environment}: ${countsLine(report)}.`
    : `No drift in ${report.environment}: the live environment matches the configuration${report.ignored.length > 0 ? ` (${report.ignored.length} ignored)` : ''}.`;
}

export function renderDriftText(report: DriftReport, palette: Palette = PLAIN): string {
  const out: string[] = [];
  if (report.changed.length > 0) {
    out.push('Changed outside agentform (live → configuration; apply would set them back):');
    for (const resource of report.changed) {
      if (resource.state === 'missing') {
        out.push(`  ${palette.remove('-')} ${palette.bold(visible(resource.address))} ${palette.dim('(declared, not live)')}`);
        continue;
      }
      out.push(`  ${palette.change('~')} ${palette.bold(visible(resource.address))}`);
      for (const field of resource.fields) for (const line of fieldLines(field, 'update', palette)) out.push(`      ${line}`);
    }
    out.push('');
  }
  if (report.unmanaged.length > 0) {
    out.push('Unmanaged (live, not in the configuration):');
    for (const resource of report.unmanaged)
      out.push(`  ? ${visible(resource.address)}${resource.reason ? palette.dim(` (${visible(resource.reason)})`) : ''}`);
    out.push('');
  }
  out.push(...ignoredTextBlock(report.ignored));
  if (report.toolSurface) out.push(renderToolSurfaceReport(report.toolSurface, palette), '');
  for (const warning of report.warnings) out.push(palette.warn(`Warning: ${visible(warning)}`));
  if (report.warnings.length > 0) out.push('');
  out.push(palette.bold(driftSummaryLine(report)));
  return out.join('\n');
}

export function renderDriftMarkdown(report: DriftReport, target?: string): string {
  const out = [`### agentform drift: ${code(report.environment)}`, ''];
  if (target) out.push(`Target: ${escapeHtml(target)}`, '');
  out.push(
    '| Changed outside | Unmanaged | Ignored |',
    '|---:|---:|---:|',
    `| ${report.changed.length} | ${report.unmanaged.length} | ${report.ignored.length} |`,
    '',
  );
  if (report.changed.length > 0) {
    out.push('Changed outside agentform (live → configuration):', '');
    const lines = report.changed.flatMap((resource) =>
      resource.state === 'missing'
        ? [`- ${resource.address} (declared, not live)`]
        : [`~ ${resource.address}`, ...resource.fields.flatMap((field) => fieldLines(field, 'update').map((line) => `    ${line}`))],
    );
    out.push(fenced(lines.map(visible).join('\n')), '');
  }
  if (report.unmanaged.length > 0)
    out.push(`Unmanaged (live, not in the configuration): ${report.unmanaged.map((resource) => code(resource.address)).join(', ')}`, '');
  if (report.ignored.length > 0) out.push(IGNORED_HEADING, '', fenced(ignoredLines(report.ignored).join('\n')), '');
  if (report.toolSurface) out.push('Tool surface:', '', fenced(renderToolSurfaceReport(report.toolSurface)), '');
  for (const warning of report.warnings) out.push(`> ⚠️ ${escapeHtml(warning)}`);
  if (report.warnings.length > 0) out.push('');
  out.push(`**${driftSummaryLine(report)}**`);
  return out.join('\n');
}

/** One environment's report as JSON values (also an element of --all-envs). */
export function driftToJson(report: DriftReport, target?: string): Record<string, unknown> {
  return {
    environment: report.environment,
    ...(target !== undefined ? { target } : {}),
    drift: hasDrift(report),
    summary: { changed: report.changed.length, unmanaged: report.unmanaged.length, ignored: report.ignored.length },
    changed: report.changed,
    unmanaged: report.unmanaged,
    ignored: report.ignored,
    warnings: report.warnings,
    ...(report.toolSurface ? { toolSurface: toolSurfaceJson(report.toolSurface) } : {}),
  };
}

export function renderDriftJson(report: DriftReport, target?: string): string {
  return JSON.stringify({ formatVersion: DRIFT_FORMAT_VERSION, ...driftToJson(report, target) }, null, 2);
}

/** --all-envs: each environment's report, or the error that stopped it. */
export function renderDriftAllJson(outcomes: ReadonlyArray<{ environment: string; report?: DriftReport; target?: string; error?: string }>): string {
  return JSON.stringify(
    {
      formatVersion: DRIFT_FORMAT_VERSION,
      drift: outcomes.some((outcome) => outcome.report && hasDrift(outcome.report)),
      environments: outcomes.map((outcome) =>
        outcome.report ? driftToJson(outcome.report, outcome.target) : { environment: outcome.environment, error: outcome.error },
      ),
    },
    null,
    2,
  );
}
