// The terminal rendering of a plan, Terraform-like: one block per resource, field changes below it,
// prompt changes as line diffs, write-only values never shown, a one-line summary at the end.
import { ignoredTextBlock } from './ignored.js';
import { derivedPolicyTextBlock } from './strict-tools.js';
import { changeCount, type ChangeAction, type FieldChange, type Plan, type ResourceChange } from '../model/resources.js';
import { isMultiline, unifiedHunks, wantsLineDiff } from './line-diff.js';
import { PLAIN, paletteFor, type Palette } from './palette.js';
import { adoptionBaseLines, scopeLines } from './scope.js';
import { clipLines, formatValue } from './values.js';
import { visible } from './visible.js';

export interface TextRenderOptions {
  /** Colour with ANSI codes (basic 16 colours). Ignored when `palette` is given. */
  color?: boolean;
  palette?: Palette;
}

const SYMBOL: Record<'create' | 'update' | 'adopt' | 'replace' | 'delete', string> = {
  create: '+',
  update: '~',
  adopt: '~>',
  replace: '-/+',
  delete: '-',
};

const VERB: Record<WritingAction, string> = {
  create: 'create',
  update: 'update in place',
  adopt: 'adopt: take over the live resource',
  replace: 'replace',
  delete: 'destroy',
};

type WritingAction = keyof typeof SYMBOL;

export function isWriting(action: ChangeAction): action is WritingAction {
  return action === 'create' || action === 'update' || action === 'adopt' || action === 'replace' || action === 'delete';
}

function colourFor(action: WritingAction, palette: Palette): (text: string) => string {
  if (action === 'create') return palette.add;
  if (action === 'delete') return palette.remove;
  return palette.change;
}

const INDENT = '    ';

/**
 * The lines of one field change (no leading indent), the first ending with the template line the
 * value came from, if a template gave it. Exported for the markdown renderer.
 */
export function fieldLines(change: FieldChange, action: ChangeAction, palette: Palette = PLAIN): string[] {
  const lines = changeLines(change, action, palette);
  if (change.source !== undefined && lines.length > 0) lines[0] += palette.dim(`  # ${visible(change.source)}`);
  return lines;
}

function changeLines(change: FieldChange, action: ChangeAction, palette: Palette): string[] {
  // Paths hold names from the configuration or the server; values are made visible by formatValue/clipLines.
  const field = { ...change, path: visible(change.path) };
  if (field.writeOnly) {
    const note = action === 'create' ? '(write-only)' : '(write-only, sent again)';
    const symbol = action === 'create' ? palette.add('+') : palette.change('~');
    return [`${symbol} ${field.path}: ${palette.dim(note)}`];
  }
  const replaceNote = field.forcesReplace ? palette.remove(' (forces replacement)') : '';
  if (field.before === undefined && field.after !== undefined) {
    if (isMultiline(field.after)) {
      return [`${palette.add('+')} ${field.path}:${replaceNote}`, ...clipLines(field.after.split('\n')).map((line) => `${INDENT}${palette.add(`+${line}`)}`)];
    }
    return [`${palette.add('+')} ${field.path}: ${formatValue(field.after)}${replaceNote}`];
  }
  if (field.after === undefined) {
    return [`${palette.remove('-')} ${field.path}: ${formatValue(field.before)}${replaceNote}`];
  }
  if (wantsLineDiff(field.before, field.after)) {
    const hunks = clipLines(unifiedHunks(field.before, field.after as string)).map((line) => {
      if (line.startsWith('@@')) return `${INDENT}${palette.dim(line)}`;
      if (line.startsWith('+')) return `${INDENT}${palette.add(line)}`;
      if (line.startsWith('-')) return `${INDENT}${palette.remove(line)}`;
      return `${INDENT}${line}`;
    });
    return [`${palette.change('~')} ${field.path}:${replaceNote}`, ...hunks];
  }
  if (field.resetToDefault || field.after === null) {
    return [`${palette.change('~')} ${field.path}: ${formatValue(field.before)} → ${palette.dim('(server default)')}${replaceNote}`];
  }
  return [`${palette.change('~')} ${field.path}: ${formatValue(field.before)} → ${formatValue(field.after)}${replaceNote}`];
}

function changeBlock(change: ResourceChange & { action: WritingAction }, palette: Palette): string[] {
  const colour = colourFor(change.action, palette);
  const lines = [`  ${colour(SYMBOL[change.action])} ${palette.bold(visible(change.address))} ${palette.dim(`(${VERB[change.action]})`)}`];
  if (change.reason) lines.push(`      ${palette.dim(`# ${visible(change.reason)}`)}`);
  for (const field of change.fields) {
    for (const line of fieldLines(field, change.action, palette)) lines.push(`      ${line}`);
  }
  return lines;
}

/** `agent/support: policies.toolCalls.byTool = {"rm":"allow"}`, one line per kept field of every resource. */
export function keptLines(plan: Plan): string[] {
  return plan.changes.flatMap((change) =>
    (change.kept ?? []).map((field) => `${visible(change.address)}: ${visible(field.path)} = ${formatValue(field.value)}`),
  );
}

export function summaryLine(plan: Plan): string {
  if (changeCount(plan) === 0) return 'No changes. Remote state matches the configuration.';
  const { add, change, replace, destroy } = plan.summary;
  // Adoptions are rare: named only when there are some, so every other summary reads as before.
  const adopt = plan.summary.adopt > 0 ? ` ${plan.summary.adopt} to adopt,` : '';
  return `Plan: ${add} to add, ${change} to change,${adopt} ${replace} to replace, ${destroy} to destroy.`;
}

export function renderPlanText(plan: Plan, options: TextRenderOptions = {}): string {
  const lines: string[] = [];
  for (const batch of planTextLines(plan, options)) for (const line of batch) lines.push(line);
  return lines.join('\n');
}

/**
 * renderPlanText's lines in batches of about `changesPerBatch` changes: joined with '\n', every
 * batch's lines are renderPlanText's text. apply prints a large plan batch by batch while its first
 * writes are on the wire, giving way to their answers between batches (cli/commands/apply).
 */
export function* planTextLines(plan: Plan, options: TextRenderOptions = {}, changesPerBatch = Infinity): Generator<string[], void, undefined> {
  const palette = options.palette ?? paletteFor(options.color === true);
  let out: string[] = [];
  const scope = [...adoptionBaseLines(plan.adoptionBase), ...scopeLines(plan.scope)];
  if (scope.length > 0) out.push(...scope.map((line) => palette.dim(line)), '');
  let blocks = 0;
  for (const change of plan.changes) {
    if (!isWriting(change.action)) continue;
    if (blocks === 0) out.push(`Changes to environment ${visible(plan.environment)}:`, '');
    for (const line of changeBlock(change as ResourceChange & { action: WritingAction }, palette)) out.push(line);
    out.push('');
    blocks += 1;
    if (blocks % changesPerBatch === 0) {
      yield out;
      out = [];
    }
  }
  const unmanaged = plan.changes.filter((change) => change.action === 'unmanaged');
  if (unmanaged.length > 0) {
    out.push(
      palette.dim(
        `Note: ${unmanaged.length} resource${unmanaged.length === 1 ? ' exists' : 's exist'} in the environment but not in the configuration (left alone; --prune deletes them):`,
      ),
    );
    for (const change of unmanaged) out.push(palette.dim(`  ? ${visible(change.address)}${change.reason ? ` (${visible(change.reason)})` : ''}`));
    out.push('');
  }
  const kept = keptLines(plan);
  if (kept.length > 0) {
    out.push('Kept, not in the configuration (apply leaves these remote values as they are; set them in the configuration to manage them):');
    for (const line of kept) out.push(`  = ${line}`);
    out.push('');
  }
  for (const line of ignoredTextBlock(plan.ignored)) out.push(line);
  for (const line of derivedPolicyTextBlock(plan.derivedToolPolicies)) out.push(line);
  for (const warning of plan.warnings) out.push(palette.warn(`Warning: ${visible(warning)}`));
  if (plan.warnings.length > 0) out.push('');
  out.push(palette.bold(summaryLine(plan)));
  yield out;
}
