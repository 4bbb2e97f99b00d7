// The "ignored" group of every output: differences an `ignore:` rule leaves alone, each with its
// rule's reason, apart from the changes (they are not changes: apply keeps the live value).
import type { IgnoredDifference } from '../model/resources.js';
import { formatValue } from './values.js';
import { visible } from './visible.js';

export const IGNORED_HEADING = 'Ignored (ignore rules in agentform.yaml; apply keeps the live values):';

/** `agent/support: system = "live" (configuration: "x")`, then the reason and rule on the next line. */
export function ignoredLines(ignored: readonly IgnoredDifference[]): string[] {
  return ignored.flatMap((item) => [
    `~ ${visible(item.address)}: ${visible(item.path)} = ${formatValue(item.before)} (configuration: ${formatValue(item.after)})`,
    `    # ${visible(item.reason)} (rule ${visible(item.rule)})`,
  ]);
}

/** The text block, heading and indented lines, or nothing when no difference is ignored. */
export function ignoredTextBlock(ignored: readonly IgnoredDifference[] | undefined): string[] {
  if (!ignored || ignored.length === 0) return [];
  return [IGNORED_HEADING, ...ignoredLines(ignored).map((line) => `  ${line}`), ''];
}
