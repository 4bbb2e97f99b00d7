// A compact plan summary for a pull-request comment or a CI job summary: a table of counts, one
// line per changed resource, the field changes in <details> sections (prompt changes as ```diff
// blocks), and optionally a Mermaid graph of what changes.
import type { Plan, ResourceChange } from '../model/resources.js';
import type { SafetyReview } from '../model/safety.js';
import { blockingFindings } from '../engine/policy/index.js';
import { findingLine, renderSafetyMarkdown } from './safety.js';
import { adoptionBaseLines, scopeLines } from './scope.js';
import { graphNodesOf, renderMermaid } from './graph.js';
import { IGNORED_HEADING, ignoredLines } from './ignored.js';
import { DERIVED_HEADING, derivedPolicyLines } from './strict-tools.js';
import { unifiedHunks, wantsLineDiff } from './line-diff.js';
import { fieldLines, isWriting, keptLines, summaryLine } from './text.js';
import { clipLines, code } from './values.js';
import { visible } from './visible.js';

export interface MarkdownRenderOptions {
  target?: string;
  /** Add a Mermaid graph of the changing resources. */
  graph?: boolean;
  /** Capability changes and policy findings, before the summary line. */
  safety?: SafetyReview;
  /** Lines shown first, under the heading (an open change window). */
  banner?: readonly string[];
}

const ICON: Record<string, string> = { create: '➕', update: '✏️', adopt: '📥', replace: '♻️', delete: '🗑️' };

/** A code fence longer than any backtick run in the content, so the content cannot close it. */
export function fenced(content: string, language = ''): string {
  const longest = Math.max(2, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${content}\n${fence}`;
}

/** Text for HTML or a Markdown line: controls made visible (no line can be forged), markup escaped. */
export function escapeHtml(text: string): string {
  return visible(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function details(change: ResourceChange): string[] {
  if (change.fields.length === 0 && !change.reason) return [];
  const plain: string[] = [];
  const diffs: string[] = [];
  for (const field of change.fields) {
    if (!field.writeOnly && wantsLineDiff(field.before, field.after)) {
      diffs.push(`${code(field.path)}:`, '', fenced(clipLines(unifiedHunks(field.before, field.after as string)).join('\n'), 'diff'), '');
    } else {
      plain.push(...fieldLines(field, change.action));
    }
  }
  const lines = [`<details><summary><code>${escapeHtml(change.address)}</code> (${change.action})</summary>`, ''];
  if (change.reason) lines.push(`_${escapeHtml(change.reason)}_`, '');
  if (plain.length > 0) lines.push(fenced(plain.join('\n')), '');
  lines.push(...diffs, '</details>', '');
  return lines;
}

/** How many of the errors apply refuses on the banner quotes before "+N more". */
const REFUSAL_NAMES = 5;

/**
 * First when apply would refuse the plan (plan exits 1): the findings' table comes last, and a
 * comment cut to fit would otherwise not say why the job failed.
 */
function refusalBanner(safety: SafetyReview | undefined): string[] {
  const blocking = safety ? blockingFindings(safety.findings) : [];
  if (blocking.length === 0) return [];
  const lines = blocking.slice(0, REFUSAL_NAMES).map(findingLine);
  if (blocking.length > REFUSAL_NAMES) lines.push(`+${blocking.length - REFUSAL_NAMES} more`);
  const count = `${blocking.length} policy error${blocking.length === 1 ? '' : 's'}`;
  return ['> [!CAUTION]', `> ⛔ **apply would refuse this plan: ${count}** (every finding is listed below).`, '', fenced(lines.join('\n')), ''];
}

export function renderPlanMarkdown(plan: Plan, options: MarkdownRenderOptions = {}): string {
  const { add, change, replace, destroy, unmanaged } = plan.summary;
  const out = [`### agentform plan: ${code(plan.environment)}`, ''];
  if (options.target) out.push(`Target: ${escapeHtml(options.target)}`, '');
  if (options.banner) out.push(...options.banner);
  out.push(...refusalBanner(options.safety));
  const scope = [...adoptionBaseLines(plan.adoptionBase), ...scopeLines(plan.scope)];
  if (scope.length > 0) out.push(fenced(scope.join('\n')), '');
  // The Adopt column only when something is adopted: every other comment keeps its table.
  const adopt = plan.summary.adopt > 0 ? plan.summary.adopt : undefined;
  out.push(
    `| Add | Change |${adopt === undefined ? '' : ' Adopt |'} Replace | Destroy | Unmanaged |`,
    `|---:|---:|${adopt === undefined ? '' : '---:|'}---:|---:|---:|`,
    `| ${add} | ${change} |${adopt === undefined ? '' : ` ${adopt} |`} ${replace} | ${destroy} | ${unmanaged} |`,
    '',
  );
  const writing = plan.changes.filter((item) => isWriting(item.action));
  for (const item of writing) {
    const fields = item.fields.filter((_field) => item.action !== 'create').map((field) => field.path);
    const shown = fields.slice(0, 5).map(code).join(', ') + (fields.length > 5 ? `, +${fields.length - 5} more` : '');
    out.push(`- ${ICON[item.action]} ${code(item.address)} ${item.action}${shown ? `: ${shown}` : ''}`);
  }
  if (writing.length > 0) out.push('');
  for (const item of writing) out.push(...details(item));
  const left = plan.changes.filter((item) => item.action === 'unmanaged');
  if (left.length > 0) {
    out.push(`Not in the configuration (left alone): ${left.map((item) => code(item.address)).join(', ')}`, '');
  }
  const kept = keptLines(plan);
  if (kept.length > 0) {
    out.push('Kept, not in the configuration (apply leaves these remote values as they are):', '', fenced(kept.join('\n')), '');
  }
  if (plan.ignored && plan.ignored.length > 0) out.push(IGNORED_HEADING, '', fenced(ignoredLines(plan.ignored).join('\n')), '');
  if (plan.derivedToolPolicies && plan.derivedToolPolicies.length > 0)
    out.push(DERIVED_HEADING, '', fenced(derivedPolicyLines(plan.derivedToolPolicies).join('\n')), '');
  for (const warning of plan.warnings) out.push(`> ⚠️ ${escapeHtml(warning)}`);
  if (plan.warnings.length > 0) out.push('');
  if (options.graph && writing.length > 0) out.push(fenced(renderMermaid(graphNodesOf(plan, { onlyChanges: true })), 'mermaid'), '');
  if (options.safety) out.push(renderSafetyMarkdown(options.safety), '');
  out.push(`**${summaryLine(plan)}**`);
  return out.join('\n');
}
