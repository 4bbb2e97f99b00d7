// V8's settings for a run of the bundle, set before any of it loads.
//
// A CLI run is short and allocates in one burst. V8's young generation grows (each semi-space up
// to 16 MB) to suit a long-running process: kept at its first size, a CLI run holds much less
// memory and spends less time collecting. And a CLI run calls little often enough for TurboFan's
// optimised code to pay for compiling it on the helper threads, which on a small machine compete
// with the run itself and with the local control plane: the CLI runs without TurboFan. `agentform
// server` is long-running and keeps V8's own settings but for the young generation's size.
// The figures are in docs/performance.md.
//
// V8 hashes its flags into every code cache it makes and reads, so each kind of run has caches of
// its own (index.ts); Node's own built-ins loaded from now on are compiled without their cache, a
// cost the benchmarks do not resolve. Both flags exist on every maintained Node's V8.
import { setFlagsFromString } from 'node:v8';

export type RunKind = 'cli' | 'server';

/** `agentform server` (its first argument that is not an option), or any other command. */
export function runKindOf(args: readonly string[]): RunKind {
  return args.find((argument) => !argument.startsWith('-')) === 'server' ? 'server' : 'cli';
}

export function applyV8Settings(kind: RunKind): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  if (kind === 'cli') setFlagsFromString('--no-turbofan');
}
