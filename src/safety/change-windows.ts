// The change-window verdict of a write to one environment, as every write path asks it (apply, a
// saved plan's apply, promote, rollback) before its first write: refused while a window is open,
// unless the write breaks the glass, which is then recorded (who, why, when). The judging is the
// engine's; this module reads the project's windows and words the refusal.
import { changeWindowsOf } from '../config/change-windows.js';
import type { ProjectRoot } from '../config/project.js';
import { describeOpenWindow, judgeWindows, openWindows, type OpenWindow, type WindowVerdict } from '../engine/change-windows.js';
import { UserError } from '../errors.js';

export interface BreakGlassRequest {
  reason: string;
  actor: string;
}

/** The windows of `environment` open at `now` (plan's report: an apply now would be refused). */
export function openChangeWindows(root: Pick<ProjectRoot, 'root'>, environment: string, now: Date): OpenWindow[] {
  return openWindows(changeWindowsOf(root, environment), now);
}

/** Throws (exit 1, nothing written) inside a window without break-glass; otherwise the verdict, to record. */
export function reviewChangeWindows(input: {
  root: Pick<ProjectRoot, 'root'>;
  environment: string;
  now: Date;
  breakGlass?: BreakGlassRequest;
  command: 'apply' | 'promote' | 'roll back';
  /** false: the write sends nothing (an apply of no changes), which no window refuses. */
  writes?: boolean;
}): WindowVerdict {
  const verdict = judgeWindows(changeWindowsOf(input.root, input.environment), input.now, input.breakGlass);
  if (verdict.outcome !== 'refused' || input.writes === false) return verdict;
  const windows = verdict.open.map(describeOpenWindow);
  throw new UserError(
    `refusing to ${input.command}: environment ${input.environment} is inside change window ${windows.join(', and ')} (nothing was changed)`,
    'wait until it closes, or, for an emergency, pass --break-glass "REASON" (recorded with who and when)',
  ).withCode('change_window');
}

/** The text note of a verdict, if it has one: the break-glass record, or a --break-glass that was not needed. */
export function verdictNote(verdict: WindowVerdict, environmentName: string): string | undefined {
  if (verdict.outcome === 'outside') {
    return verdict.unusedBreakGlass ? `Note: --break-glass not used: no change window of ${environmentName} is open.` : undefined;
  }
  if (verdict.outcome !== 'break-glass') return undefined;
  const { record } = verdict;
  return `Break glass: ${record.actor} at ${record.at}, through change window ${verdict.open.map(describeOpenWindow).join(', and ')}: ${record.reason}`;
}
