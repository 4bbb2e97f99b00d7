// The heap while an apply writes (issue 17).
//
// Once an apply's first writes are on the wire, what it holds (the desired and actual state, the
// plan) stays as it is to the end; the writes only add garbage. Each request's objects (its header
// block, its answer's text, Node's request object) live for a round trip, long enough to be copied
// through the 1 MB young generation into the old space, where they wait for a full collection, and
// V8 lets the old generation grow to up to 4 times what its last full collection kept before it
// collects again. That growth was the peak of a large apply: from empty, 3,000 agents had 30 MB of
// heap in use at the first write and peaked at 94-96 MB RSS later, while writing.
//
// So, with at least SETTLE_MIN_HEAP_BYTES in use when the first writes have gone out: one full
// collection there, in the first round trip's wait, and from then on the old generation grows by
// HEAP_GROWING_PERCENT of what each full collection keeps. Apply from empty, peak RSS (wall and CPU
// unchanged within noise): 2,000 agents 76-78 -> 65-67 MB, 3,000 92-96 -> 76-79 MB, 5,000 at 20 ms
// 103-104 -> 98-99 MB. The collection took 8-15 ms at 2,000-5,000 agents; 20 % grew the heap no
// less than 50 % did for more collections. An apply of 1,000 agents (11-15 MB in use) gained
// nothing and would pay ~7 ms: smaller heaps are left as they are.
//
// The setting applies from then on, only to this process (the CLI's, never `agentform server`'s
// or a test runner's: v8-tuning.ts allows it). V8 hashes its flags into every code cache it reads or
// makes, and refuses a cache made under other flags: no chunk that has a cache loads after an
// apply's first write (the local control plane of `url: local`, in the same process, loads two
// small ones that have none), and the build's training runs, which write the caches when they
// exit, never settle.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { setV8Flag } from './v8-flags.js';

/** Below this much heap in use at the first write, the heap is left as it is. */
export const SETTLE_MIN_HEAP_BYTES = 20 * 1024 * 1024;
/** How much the old generation may grow past what a full collection kept, once settled. */
export const HEAP_GROWING_PERCENT = 50;

let allowed = false;

/** Lets this process settle its heap when an apply starts writing. For v8-tuning.ts only. */
export function allowWritePhaseHeapSettling(): void {
  allowed = true;
}

/** What settling found (heap in use when the writes started) and did. */
export type HeapSettling =
  | { state: 'small'; usedBytes: number }
  | { state: 'unavailable'; usedBytes: number }
  | { state: 'collected'; usedBytes: number; afterBytes: number; ms: number };

/**
 * At the start of an apply's writes: with at least `minBytes` of heap in use, one full collection,
 * then a slower-growing old generation. Undefined where the process has not allowed it.
 */
export function settleHeapForWrites(minBytes = SETTLE_MIN_HEAP_BYTES): HeapSettling | undefined {
  if (!allowed) return undefined;
  // Once per process: a second apply in one process (none today) finds the setting in place.
  allowed = false;
  const usedBytes = getHeapStatistics().used_heap_size;
  if (usedBytes < minBytes) return { state: 'small', usedBytes };
  const collect = fullCollection();
  // Only a memory saving: without a way to collect, the heap is left as it is.
  if (!collect) return { state: 'unavailable', usedBytes };
  // Before the collection: V8 sets the old generation's next limit as the collection ends.
  setV8Flag('heap-growing-percent', HEAP_GROWING_PERCENT);
  const startedAt = performance.now();
  collect();
  return { state: 'collected', usedBytes, afterBytes: getHeapStatistics().used_heap_size, ms: performance.now() - startedAt };
}

/**
 * For an apply's event stream: settles the heap once, on the tick after the first write starts,
 * when the first writes are on the wire. `report` gets the --debug line.
 */
export function settleHeapAfterFirstWrite(report?: (line: string) => void): (event: { type: string }) => void {
  let writesStarted = false;
  return (event) => {
    if (writesStarted || event.type !== 'start') return;
    writesStarted = true;
    setImmediate(() => {
      try {
        const settling = settleHeapForWrites();
        if (settling) report?.(describeHeapSettling(settling));
      } catch {
        // A memory saving only: no apply stops for it.
      }
    });
  };
}

// V8 offers a full collection to JavaScript only as `gc`, installed in contexts made while
// --expose-gc is set: a context of its own, so the process's global object does not change.
function fullCollection(): (() => void) | undefined {
  // Started with --expose-gc (NODE_OPTIONS): there it is, and the flag stays as it was.
  const own: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as () => void;
  try {
    setFlagsFromString('--expose-gc');
    const collect: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
    return typeof collect === 'function' ? (collect as () => void) : undefined;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** One line for --debug. */
export function describeHeapSettling(settling: HeapSettling): string {
  const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  const found = `heap at the first write: ${mb(settling.usedBytes)} in use`;
  switch (settling.state) {
    case 'small':
      return `${found}, under ${mb(SETTLE_MIN_HEAP_BYTES)}: left as it is`;
    case 'unavailable':
      return `${found}; this Node offers no full collection: left as it is`;
    case 'collected':
      return `${found}, ${mb(settling.afterBytes)} after a full collection (${settling.ms.toFixed(1)} ms); the old generation now grows by ${HEAP_GROWING_PERCENT} % of what a collection keeps`;
  }
}
