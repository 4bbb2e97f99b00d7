// What a plan leaves out on purpose, and why: resources outside the project's `owns:` patterns,
// resources matching `--exclude`, and resources the project has forgotten (`forget:`). Plain data,
// recorded in the plan (and so in a saved plan) so that its header says what it does not touch.
import type { ResourceAddress } from './resources.js';

/** One resource the plan sets aside: never created, changed or deleted by it. */
export interface SetAsideResource {
  address: ResourceAddress;
  /** forgotten: listed in `forget:`; excluded: matched by --exclude (or depends on what was). */
  as: 'forgotten' | 'excluded';
  reason: string;
}

export interface PlanScope {
  /** The --exclude patterns the plan was made with (a saved plan applies with the same). */
  excludes: string[];
  /** The project's `owns:` patterns; absent: it owns the whole environment. */
  owns?: string[];
  /** Live resources outside `owns:`, left out of the plan (counted, never listed). */
  notOwned: number;
  setAside: SetAsideResource[];
}
