// V8 heap settings for a short-lived CLI process, applied before anything else is loaded (main.ts
// imports this module first).
//
// The young generation's semi-spaces grow to 16 MB each by default, sized for long-running servers
// with high allocation rates. A CLI run allocates in one burst, and the grown semi-spaces were most
// of its memory: plan of 1,000 agents, peak RSS 105 MB -> 80 MB with semi-spaces kept at 1 MB, and less CPU
// too (~0.70 -> ~0.50 s: the scavenges stay in cache). Measured side by side with decK (issue 17).
// The maximum size is fixed when the heap is set up, before any of our code runs, but the growth
// factor is read whenever the spaces would grow: a factor of 1 keeps them at their initial 1 MB.
//
// The interrupt budget (how much a function runs before V8 considers optimising it with TurboFan)
// is 16 times the default, except in the "parse" mode (v8-mode.ts), whose YAML parser wants
// TurboFan early: a CLI run calls its per-resource functions a few thousand times, and compiling
// them with TurboFan (on helper threads, with its own memory) cost more than the
// optimised code saved. Measured on 2 cores, CPU user+sys and peak RSS, median of 7 (3 for 10,000):
// plan of 1,000 agents, no changes 0.51 -> 0.42 s, 81 -> 76 MB; plan of 10,000 agents 2.04 -> 1.82 s,
// 257 -> 245 MB; apply of 5,000 agents from empty 3.1 -> 3.3 s CPU (8.2 -> 8.1 s wall, 161 -> 156 MB).
// Code that stays hot still gets optimised, only later.
//
// Without TurboFan for small projects ("lean", v8-mode.ts): optimised code does not pay off there,
// and TurboFan's own machine code was ~4 MB of a small plan's memory. Nor Sparkplug for the smallest
// ("small"): their runs end before baseline code pays for its compiling.
import { loadBuiltinsUnderV8Defaults, setV8Flag } from './v8-flags.js';
import { chooseV8Mode, type V8ModeChoice } from './v8-mode.js';
import { allowYoungGenerationGrowth } from './young-generation.js';

const args = process.argv.slice(2);
// Not for `agentform server`, a long-running process that serves large lists for as long as it runs.
export const isServerRun = args.find((argument) => !argument.startsWith('-')) === 'server';
if (!isServerRun) {
  // stdout made now, under V8's defaults, so that the built-ins behind it (its sync writer, or tty
  // and net on a terminal) load from Node's code cache: Node makes it on first use, not through
  // require. Every command prints to stdout; stderr is left to its first use (made here, it cost
  // validate ~1 ms when stderr is a pipe: it loads net, which validate has no other use for).
  void process.stdout;
  // Node's built-ins, loaded later, from its code caches all the same (v8-flags.ts).
  loadBuiltinsUnderV8Defaults();
  setV8Flag('semi-space-growth-factor', 1);
  // Off while the mode is chosen: looking through a project of 1,000 agents calls Node's path helpers
  // often enough for V8 to optimise them, which pages TurboFan in, the very thing lean avoids (the
  // lean run then peaked as high as a full one). V8 hashes the flags as they are when a code cache
  // is read, so turning it back on leaves the full mode's caches valid.
  setV8Flag('turbofan', false);
}
/** The settings this run uses (undefined: V8's defaults, for the server). */
export const v8Choice: V8ModeChoice | undefined = isServerRun ? undefined : chooseV8Mode(args, process.env, process.cwd());
// The parse mode keeps V8's own interrupt budget: TurboFan early, for the YAML parser's loop.
if (v8Choice && v8Choice.mode !== 'parse') setV8Flag('interrupt-budget', 1_081_344);
if (v8Choice && v8Choice.mode !== 'lean' && v8Choice.mode !== 'small') setV8Flag('turbofan', true);
if (v8Choice?.mode === 'small') setV8Flag('sparkplug', false);
// Except while a large project is parsed afresh (young-generation.ts).
if (v8Choice?.growYoungGeneration) allowYoungGenerationGrowth();
/** A run of the build's that writes the bundle's code caches when it exits (bin.ts, scripts/build.mjs). */
export const isCodeCacheTrainingRun = process.env.AGENTFORM_WRITE_CODE_CACHE === '1';
