// The safety review as text, Markdown, JSON and GitHub annotations: policy findings (located),
// and the capability changes per agent, e.g.
//   support: + github.delete_repo (destructive) now runs without a decision
import type {
  AgentCapabilityDiff,
  AgentIdentityDiff,
  Capability,
  CapabilityChange,
  Finding,
  IdentityChange,
  SafetyReview,
  ToolDecision,
} from '../model/safety.js';
import { escapeData, escapeProperty } from '../util/workflow-commands.js';
import { code } from './values.js';
import { PLAIN, type Palette } from './palette.js';

const DECISION: Record<ToolDecision, string> = { allowed: 'runs without a decision', hook: 'decided by a hook', denied: 'denied' };
const MARK: Record<CapabilityChange['change'], string> = { added: '➕', removed: '➖', changed: '✏️' };
const DECISION_SHORT: Record<ToolDecision, string> = { allowed: 'no decision', hook: 'hook', denied: 'denied' };

function pathText(path: Finding['path']): string {
  return path.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}

function toolLabel(change: Pick<CapabilityChange, 'tool' | 'via'>): string {
  return [...change.via, change.tool].join(' › ');
}

/** `+ github.delete_repo (destructive) now runs without a decision`, without the agent. */
export function capabilityChangeText(change: CapabilityChange): string {
  const label = toolLabel(change);
  if (change.change === 'added' && change.after) {
    const verb =
      change.after.decision === 'allowed'
        ? 'now runs without a decision'
        : change.after.decision === 'hook'
          ? 'now callable, decided by a hook'
          : 'now listed, denied';
    return `+ ${label} (${change.after.effect}) ${verb}`;
  }
  if (change.change === 'removed' && change.before) return `- ${label} (${change.before.effect}) no longer callable`;
  const before = change.before as NonNullable<CapabilityChange['before']>;
  const after = change.after as NonNullable<CapabilityChange['after']>;
  const parts: string[] = [];
  if (before.decision !== after.decision)
    parts.push(
      after.decision === 'allowed'
        ? `now runs without a decision (was ${DECISION[before.decision]})`
        : `now ${DECISION[after.decision]} (was ${DECISION[before.decision]})`,
    );
  if (before.effect !== after.effect) parts.push(`now marked ${after.effect} (was ${before.effect})`);
  return `~ ${label} (${after.effect}) ${parts.join(', ')}`;
}

/** Riskier when it adds or widens an unchecked call to a tool that may write or destroy. */
function widens(change: CapabilityChange): boolean {
  return change.after?.decision === 'allowed' && change.after.effect !== 'read-only' && change.before?.decision !== 'allowed';
}

function findingWhere(finding: Finding): string {
  return finding.location ? `${finding.location.file}:${finding.location.line}:${finding.location.col}: ` : '';
}

export function findingLine(finding: Finding): string {
  const suppressed = finding.suppressed ? ` (suppressed: ${finding.suppressed.reason})` : '';
  return `${findingWhere(finding)}${finding.suppressed ? 'suppressed' : finding.severity} [${finding.rule}] ${finding.address}: ${finding.message}${suppressed}`;
}

export function countsLine(review: SafetyReview): string {
  const { errors, warnings, suppressed } = review.counts;
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  return `Policy: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}${suppressed > 0 ? `, ${suppressed} suppressed` : ''} (environment ${review.environment}${review.environmentKind ? `, kind ${review.environmentKind}` : ''}).`;
}

/** A rule with more warnings (or suppressed findings) than this shows its first few and a count. */
const FOLD_ABOVE = 10;
const SHOWN_WHEN_FOLDED = 5;

/** Warnings and suppressed findings fold by rule; errors never do (each one blocks apply). */
function foldKey(finding: Finding): string | undefined {
  if (finding.severity === 'error' && !finding.suppressed) return undefined;
  return `${finding.suppressed ? 'suppressed' : finding.severity}\0${finding.rule}`;
}

/**
 * The findings, one line each, then the notes and the counts. A thousand agents missing the same
 * limit would bury the plan under a thousand identical warnings: past FOLD_ABOVE of one rule, the
 * text shows the first few and how many more (JSON, Markdown and annotations keep every one).
 */
export function renderFindingsText(review: SafetyReview, palette: Palette = PLAIN): string[] {
  const lines: string[] = [];
  const totals = new Map<string, number>();
  for (const finding of review.findings) {
    const key = foldKey(finding);
    if (key) totals.set(key, (totals.get(key) ?? 0) + 1);
  }
  const shown = new Map<string, number>();
  for (const finding of review.findings) {
    const key = foldKey(finding);
    const total = key ? (totals.get(key) ?? 0) : 0;
    if (key && total > FOLD_ABOVE) {
      const count = (shown.get(key) ?? 0) + 1;
      shown.set(key, count);
      if (count > SHOWN_WHEN_FOLDED) {
        const kind = finding.suppressed ? 'suppressed findings' : 'warnings';
        if (count === SHOWN_WHEN_FOLDED + 1) lines.push(palette.dim(`… and ${total - SHOWN_WHEN_FOLDED} more ${kind} [${finding.rule}] (all of them: --json)`));
        continue;
      }
    }
    const line = findingLine(finding);
    lines.push(finding.suppressed ? palette.dim(line) : finding.severity === 'error' ? palette.remove(line) : palette.warn(line));
  }
  for (const note of review.notes) lines.push(palette.dim(`note: ${note}`));
  lines.push(palette.bold(countsLine(review)));
  return lines;
}

export function renderCapabilityChangesText(changes: readonly AgentCapabilityDiff[], palette: Palette = PLAIN): string[] {
  if (changes.length === 0) return ['Capabilities: unchanged.'];
  const lines = ['Capability changes (what each agent can do, before → after):'];
  for (const diff of changes) {
    if (diff.changes.length === 0) lines.push(`  ${diff.agent}: ${diff.status === 'created' ? 'new agent with no tools' : 'removed (had no tools)'}`);
    for (const change of diff.changes) {
      const text = `  ${diff.agent}: ${capabilityChangeText(change)}`;
      lines.push(change.change === 'removed' ? palette.add(text) : widens(change) ? palette.remove(text) : palette.change(text));
    }
  }
  return lines;
}

/** `+ user:alice now reaches github (2 tools) through grant github:user:alice`, without the agent. */
export function identityChangeText(change: IdentityChange): string {
  const { reach } = change;
  const where = [...reach.via, reach.connection].join(' › ');
  const count =
    reach.tools.length === 1 && reach.tools[0]?.endsWith('.*') ? 'tools unknown' : `${reach.tools.length} tool${reach.tools.length === 1 ? '' : 's'}`;
  const through = (grant: string | undefined) => (grant ? `through grant ${grant}` : "through the connection's own credential (identity not required)");
  if (change.change === 'changed') {
    const was = change.before.grant !== reach.grant ? `; was ${through(change.before.grant)}` : '';
    const note = change.before.note !== reach.note ? `; note now: ${reach.note ?? 'none'} (was: ${change.before.note ?? 'none'})` : '';
    return `~ ${reach.identity} still reaches ${where} (${count}) ${through(reach.grant)}${was}${note}`;
  }
  const verb = change.change === 'added' ? 'now reaches' : 'no longer reaches';
  return `${change.change === 'added' ? '+' : '-'} ${reach.identity} ${verb} ${where} (${count}) ${through(reach.grant)}${reach.note ? `; ${reach.note}` : ''}`;
}

/** A change that gives an identity more than before: added, or newly carrying a note (assumed admitted past a restriction). */
function identityWidens(change: IdentityChange): boolean {
  return change.change === 'added' || (change.change === 'changed' && change.reach.note !== undefined);
}

/** Only when something changes: most plans touch no grant and no identity setting. */
export function renderIdentityChangesText(changes: readonly AgentIdentityDiff[], palette: Palette = PLAIN): string[] {
  if (changes.length === 0) return [];
  const lines = ['Identity changes (who reaches which connection, through which grant):'];
  for (const diff of changes)
    for (const change of diff.changes) {
      const text = `  ${diff.agent}: ${identityChangeText(change)}`;
      lines.push(identityWidens(change) ? palette.remove(text) : change.change === 'removed' ? palette.add(text) : palette.change(text));
    }
  return lines;
}

/** The review under a plan (text): capability changes, identity changes, then findings. */
export function renderSafetyText(review: SafetyReview, palette: Palette = PLAIN): string {
  const lines: string[] = [];
  if (review.capabilityChanges) lines.push(...renderCapabilityChangesText(review.capabilityChanges, palette), '');
  const identities = renderIdentityChangesText(review.identityChanges ?? [], palette);
  if (identities.length > 0) lines.push(...identities, '');
  lines.push(...renderFindingsText(review, palette));
  return lines.join('\n');
}

function cell(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function capabilityRow(capability: Capability): string {
  const decision = capability.decision === 'allowed' && capability.effect !== 'read-only' ? `⚠️ ${DECISION_SHORT.allowed}` : DECISION_SHORT[capability.decision];
  return `| ${code(toolLabel(capability))} | ${capability.effect} | ${decision} |`;
}

/** Markdown for a pull-request comment: findings as a table, one compact capability table per changed agent. */
export function renderSafetyMarkdown(review: SafetyReview): string {
  const out: string[] = [];
  if (review.capabilityChanges && review.capabilityChanges.length > 0) {
    out.push('#### Capability changes', '');
    for (const diff of review.capabilityChanges) {
      out.push(`**${code(diff.agent)}** (${diff.status === 'changed' ? 'changed' : diff.status === 'created' ? 'new agent' : 'removed'})`, '');
      for (const change of diff.changes) {
        const text = capabilityChangeText(change).slice(2);
        out.push(`- ${MARK[change.change]} ${widens(change) ? '⚠️ ' : ''}${cell(text)}`);
      }
      if (diff.changes.length > 0) out.push('');
      if (diff.status !== 'deleted' && diff.capabilities.length > 0) {
        out.push('| Tool | Effect | Decision |', '|---|---|---|', ...diff.capabilities.map(capabilityRow), '');
      }
    }
  }
  if (review.identityChanges && review.identityChanges.length > 0) {
    out.push('#### Identity changes', '');
    for (const diff of review.identityChanges) {
      out.push(`**${code(diff.agent)}**`, '');
      for (const change of diff.changes) out.push(`- ${MARK[change.change]} ${identityWidens(change) ? '⚠️ ' : ''}${cell(identityChangeText(change).slice(2))}`);
      out.push('');
    }
  }
  const shown = review.findings;
  out.push('#### Policy findings', '');
  if (shown.length > 0) {
    out.push('| Severity | Rule | Resource | Where | Finding |', '|---|---|---|---|---|');
    for (const finding of shown) {
      const severity = finding.suppressed ? `suppressed (${finding.severity})` : finding.severity === 'error' ? '❌ error' : '⚠️ warning';
      const where = finding.location ? code(`${finding.location.file}:${finding.location.line}`) : '';
      const message = finding.suppressed ? `${finding.message} — suppressed: ${finding.suppressed.reason}` : finding.message;
      out.push(`| ${severity} | ${code(finding.rule)} | ${code(finding.address)} | ${where} | ${cell(message)} |`);
    }
    out.push('');
  }
  for (const note of review.notes) out.push(`> ${cell(note)}`);
  if (review.notes.length > 0) out.push('');
  out.push(`**${cell(countsLine(review))}**`);
  return out.join('\n');
}

/** The review for `--json` (plan's `safety` key, check's output). */
export function safetyToJson(review: SafetyReview): Record<string, unknown> {
  return {
    environment: review.environment,
    ...(review.environmentKind ? { environmentKind: review.environmentKind } : {}),
    counts: review.counts,
    findings: review.findings.map((finding) => ({
      rule: finding.rule,
      severity: finding.severity,
      address: finding.address,
      path: pathText(finding.path),
      message: finding.message,
      ...(finding.custom ? { custom: true } : {}),
      ...(finding.suppressed ? { suppressed: finding.suppressed } : {}),
      ...(finding.location ? { file: finding.location.file, line: finding.location.line, col: finding.location.col } : {}),
    })),
    ...(review.capabilityChanges ? { capabilityChanges: review.capabilityChanges } : {}),
    ...(review.identityChanges ? { identityChanges: review.identityChanges } : {}),
    notes: review.notes,
  };
}

/** `::error file=agents/support.yaml,line=12,col=5::[limits-missing] agent/support: ...`, suppressed findings left out. */
export function renderFindingAnnotations(review: SafetyReview): string[] {
  return review.findings
    .filter((finding) => !finding.suppressed)
    .map((finding) => {
      const properties = finding.location ? ` file=${escapeProperty(finding.location.file)},line=${finding.location.line},col=${finding.location.col}` : '';
      return `::${finding.severity}${properties}::${escapeData(`[${finding.rule}] ${finding.address}: ${finding.message}`)}`;
    });
}
