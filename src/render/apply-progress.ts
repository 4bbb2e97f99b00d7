// The live status line shown on a terminal while apply runs: what is in flight and how far along.
// Pure: the command decides where it goes and when to clear it.
import type { ApplyProgress } from '../apply/progress.js';

export function renderProgressLine(progress: ApplyProgress, width = 100): string {
  const flying =
    progress.inFlight.length === 0
      ? ''
      : `: ${progress.inFlight.slice(0, 3).join(', ')}${progress.inFlight.length > 3 ? ` +${progress.inFlight.length - 3}` : ''}`;
  const line = `… ${progress.finished}/${progress.total} done, ${progress.inFlight.length} in flight${flying}`;
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}
