// The apply progress state machine: how many changes there are, how many finished, which are in
// flight. Pure: the command feeds it every event and draws the status line from its state
// (render/apply-progress.ts); the second Ctrl-C names what is in flight from it.
import type { Plan } from '../model/resources.js';
import type { ApplyEvent } from './events.js';

export interface ApplyProgress {
  total: number;
  finished: number;
  inFlight: string[];
}

/** Nothing started: every change that writes (not no-op, not unmanaged) is still to do. */
export function initialProgress(plan: Pick<Plan, 'changes'>): ApplyProgress {
  return { total: plan.changes.filter((change) => change.action !== 'no-op' && change.action !== 'unmanaged').length, finished: 0, inFlight: [] };
}

/** The state after `event`: start puts a change in flight, done/failed take it out and count it, skipped counts it. */
export function advanceProgress(progress: ApplyProgress, event: ApplyEvent): ApplyProgress {
  switch (event.type) {
    case 'start':
      return { ...progress, inFlight: [...progress.inFlight, event.address] };
    case 'done':
    case 'failed':
      return { ...progress, inFlight: progress.inFlight.filter((address) => address !== event.address), finished: progress.finished + 1 };
    case 'skipped':
      return { ...progress, finished: progress.finished + 1 };
    case 'info':
      return progress;
  }
}
