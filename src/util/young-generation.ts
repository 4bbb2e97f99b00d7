// The young generation while a large project is parsed afresh (v8-tuning.ts decides when).
//
// The CLI keeps V8's young generation at its initial 1 MB semi-spaces (v8-tuning.ts): most runs
// allocate in one burst, and the grown spaces were most of their memory. Parsing YAML is the
// exception: the yaml package allocates ~850 bytes per byte of YAML, and each 1 MB collection finds
// the file being parsed still alive, copies it and, at the second time, moves it to the old space,
// where it stays, dead, until a full collection. Validate of 5,000 agents with nothing in the parse
// cache spent 37 % of its time in the young generation's collections. Let grow to 8 MB while
// parsing, it took 14-18 % less time and peaked 8-10 MB lower (less of each file reached the old
// space). Smaller projects gain less and peak a little higher (650 agents: 5 % faster, +2.7 MB;
// 1,000: 9 %, +3 MB; 1,500: 11 %, the same), hence a threshold (v8-mode.ts).
//
// V8 reads the growth factor whenever the space would grow, and hashes the flags into every code
// cache it reads: the factor is changed only between parsed files, after the first (which loads the
// parser's and the validators' chunks), and set back when the parsing ends.
import { getHeapSpaceStatistics } from 'node:v8';
import { setV8Flag } from './v8-flags.js';

/** The young generation's size (both semi-spaces, as V8 counts it) at which growing stops. */
export const YOUNG_GENERATION_CAP_BYTES = 8 * 1024 * 1024;

let allowed = false;

/** Lets the next project's parsing grow the young generation (up to the cap). For v8-tuning.ts only. */
export function allowYoungGenerationGrowth(): void {
  allowed = true;
}

export interface ParsingGrowth {
  /** After each parsed file: starts the growth, or stops it at the cap. */
  afterFile(): void;
  /** When the parsing is over: no more growth. */
  end(): void;
}

const NO_GROWTH: ParsingGrowth = { afterFile: () => undefined, end: () => undefined };

/** The growth for one pass over a project's files: nothing unless allowed (once per process). */
export function youngGenerationWhileParsing(): ParsingGrowth {
  if (!allowed) return NO_GROWTH;
  allowed = false;
  let growing = false;
  let done = false;
  const stop = () => {
    if (growing) setV8Flag('semi-space-growth-factor', 1);
    growing = false;
    done = true;
  };
  return {
    afterFile() {
      if (done) return;
      if (!growing) {
        setV8Flag('semi-space-growth-factor', 2);
        growing = true;
        return;
      }
      const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
      if ((newSpace?.space_size ?? 0) >= YOUNG_GENERATION_CAP_BYTES) stop();
    },
    end: stop,
  };
}
