// The lines a plan opens with when it leaves resources out on purpose (plan.scope): the --exclude
// and owns: patterns, and each forgotten or excluded resource with its reason. Shared by the text
// and Markdown renderers.
import type { PlanScope } from '../model/resources.js';
import { visible } from './visible.js';

/** Plain lines (no colour, no markup), empty when the plan has no scope. */
export function scopeLines(scope: PlanScope | undefined): string[] {
  if (!scope) return [];
  const lines: string[] = [];
  if (scope.excludes.length > 0) lines.push(`Excluding (--exclude): ${scope.excludes.map(visible).join(', ')}`);
  if (scope.owns) {
    const outside = scope.notOwned === 0 ? '' : `; ${scope.notOwned} live resource${scope.notOwned === 1 ? '' : 's'} outside it left out`;
    lines.push(`Owns: ${scope.owns.map(visible).join(', ')}${outside}`);
  }
  const forgotten = scope.setAside.filter((item) => item.as === 'forgotten');
  if (forgotten.length > 0) {
    lines.push('Forgotten (kept live, no longer managed: never created, changed or deleted):');
    for (const item of forgotten) lines.push(`  ~ ${visible(item.address)} (${visible(item.reason)})`);
  }
  const excluded = scope.setAside.filter((item) => item.as === 'excluded');
  if (excluded.length > 0) {
    lines.push('Excluded (left as they are):');
    for (const item of excluded) lines.push(`  ! ${visible(item.address)} (${visible(item.reason)})`);
  }
  return lines;
}

/** The line saying what adoptions were judged against (`--base`), or none when not checked. */
export function adoptionBaseLines(base: string | undefined): string[] {
  return base === undefined ? [] : [`Base (--base): ${visible(base)}; a live resource it does not declare is adopted (~>)`];
}
