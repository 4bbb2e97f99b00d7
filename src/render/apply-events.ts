// Text lines for apply progress and its closing summary. No I/O: the command writes the strings.
import type { ApplyEvent, ApplyResult } from '../apply/events.js';
import { paletteFor } from './palette.js';
import { visible } from './visible.js';

const VERB = {
  create: ['Creating', 'Created'],
  update: ['Updating', 'Updated'],
  adopt: ['Adopting', 'Adopted'],
  replace: ['Replacing', 'Replaced'],
  delete: ['Destroying', 'Destroyed'],
  'no-op': ['Checking', 'Checked'],
  unmanaged: ['Checking', 'Checked'],
} as const;

function seconds(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}

export function renderApplyEvent(event: ApplyEvent, options: { color: boolean }): string {
  const paint = paletteFor(options.color);
  // Addresses, notes and server messages are made visible before the line is coloured.
  switch (event.type) {
    case 'start':
      return visible(`${event.address}: ${VERB[event.action][0]}...`);
    case 'done':
      return paint.add(visible(`${event.address}: ${VERB[event.action][1]} after ${seconds(event.ms)}${event.note ? ` (${event.note})` : ''}`));
    case 'failed':
      return paint.remove(visible(`${event.address}: failed after ${seconds(event.ms)}: ${event.code}: ${event.message}`));
    case 'skipped':
      return paint.warn(visible(`${event.address}: skipped (${event.reason})`));
    case 'info':
      return visible(`${event.address ? `${event.address}: ` : ''}${event.message}`);
  }
}

/** `ms`: the run's total time, stated after the counts when given. */
export function renderApplySummary(result: ApplyResult, options: { color: boolean; ms?: number }): string {
  const paint = paletteFor(options.color);
  const lines: string[] = [''];
  const { added, changed, adopted, replaced, destroyed } = result.counts;
  const took = options.ms === undefined ? '' : ` Total time: ${seconds(options.ms)}.`;
  // Adoptions are rare: the count is named only when there are some.
  const adoptedCount = adopted > 0 ? ` ${adopted} adopted,` : '';
  const counts = `Resources: ${added} added, ${changed} changed,${adoptedCount} ${replaced} replaced, ${destroyed} destroyed.${took}`;
  if (result.failed.length === 0 && result.skipped.length === 0 && result.notStarted.length === 0) {
    lines.push(paint.bold(paint.add(`Apply complete! ${counts}`)));
    return lines.join('\n');
  }
  lines.push(paint.bold(paint.remove(`Apply incomplete. ${counts}`)));
  if (result.failed.length > 0) {
    lines.push('Failed:');
    for (const item of result.failed) lines.push(`  ${item.address} (${item.action}): ${item.code}: ${item.message}`);
  }
  if (result.skipped.length > 0) {
    lines.push('Skipped:');
    for (const item of result.skipped) lines.push(`  ${item.address} (${item.action}): ${item.reason}`);
  }
  if (result.stoppedBy) lines.push(`Stopped: ${result.stoppedBy}.`);
  if (result.notStarted.length > 0) {
    lines.push(result.stoppedBy ? 'Not started:' : 'Not started (interrupted):');
    for (const item of result.notStarted) lines.push(`  ${item.address} (${item.action})`);
  }
  if (result.done.length > 0) {
    lines.push('Done:');
    for (const item of result.done) lines.push(`  ${item.address} (${item.action})`);
  }
  // Only the first two lines are coloured (by us); the rest quote addresses and server messages.
  return lines.map((line, index) => (index < 2 ? line : visible(line))).join('\n');
}
