// Which V8 settings a CLI run starts with: v8-tuning.ts applies the choice before anything else loads.
//
// "lean" runs without TurboFan, V8's optimising compiler. A run over a small project calls nothing
// often enough for optimised code to pay off, yet V8 still optimised a couple of Node's own helpers
// (path separators, argument validation), and the first optimisation pages TurboFan's machine code
// in: a plan of 20 agents peaked at 54.6 MB RSS with it and 50.8 MB without (bare node: 38 MB), for
// the same CPU. Two things set the limits (issue 17 measured them, A/B on 2 cores):
// - Parsing YAML that the parse cache does not hold (a fresh CI checkout, files just edited) is the
//   one loop TurboFan helps at these sizes: without it, validate from a cold cache took as long at
//   73 KB of YAML, 3 % longer at 104 KB, 7 % at 137 KB, 15 % at 334 KB. So: at most
//   LEAN_MAX_COLD_YAML_BYTES of files that changed since the parse cache last took an entry.
// - With the cache warm, plan and apply took the same time either way up to 2,000 agents (664 KB);
//   at 5,000 (1.7 MB) apply's first write came ~30 ms later and its CPU rose ~7 %. So: at most
//   LEAN_MAX_YAML_BYTES in all.
// "parse" is V8's own settings, for a run with much YAML to parse without the parse cache: the YAML
// parser is one hot loop, which TurboFan should optimise early (the tuned interrupt budget held it
// back), allocating all the way, which a young generation free to grow collects with fewer
// scavenges. Validate from a cold cache, medians of 9 interleaved runs, lean / full / parse:
// 115 KB 359 / 376 / 433 ms, 182 KB 537 / 532 / 519 ms, 216 KB 754 / 686 / 648 ms, 266 KB
// 809 / 751 / 583 ms, 350 KB (1,000 agents) 958 / 857 / 653 ms; 1.7 MB (5,000 agents) full 2.2-3.9 s,
// parse 1.6-2.4 s on a noisy machine. So: over PARSE_MIN_COLD_YAML_BYTES, for ~10 MB more peak RSS.
// "full" keeps TurboFan with the tuned budget and young generation (v8-tuning.ts): a large project
// whose YAML the parse cache holds, between the two limits on YAML to parse, and whenever the size of the work is not known from a project
// directory (a saved plan, a command that only talks to the API). Whether a file is in the parse
// cache would take hashing it to know; its modification time against the cache directory's (which
// changes whenever an entry is written or removed) is the estimate, and a wrong guess only costs time.
//
// V8 accepts a code cache only under the flags it was made with, so each mode has its own caches
// (code-cache.ts; scripts/build.mjs trains them all).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseCacheDir } from '../config/parse-cache-dir.js';

/** Every mode, in the order the build trains their code caches. */
export const V8_MODES = ['full', 'lean', 'parse'] as const;
export type V8Mode = (typeof V8_MODES)[number];

/**
 * What the "parse" mode sets back: V8's own values of the flags v8-tuning.ts changes (Node 20's V8;
 * test/util/v8-mode.test.ts checks them against `node --v8-options`). A flag at its default value
 * counts as unset, so V8 hashes these flags as it hashes a process that never set them.
 */
export const V8_DEFAULTS = ['--semi-space-growth-factor=2', '--interrupt-budget=67584', '--turbofan'] as const;

export interface V8ModeChoice {
  mode: V8Mode;
  /** Why, for `--debug`. */
  reason: string;
}

/** Lean runs have at most this much YAML to parse without the parse cache: ~250 agents. */
export const LEAN_MAX_COLD_YAML_BYTES = 96 * 1024;
/** ... and at most this much YAML in all: ~2,300 agents. */
export const LEAN_MAX_YAML_BYTES = 768 * 1024;
/** Runs with more YAML than this to parse without the parse cache are "parse": ~550 agents. */
export const PARSE_MIN_COLD_YAML_BYTES = 192 * 1024;
/** A walk that meets more directory entries than this stops: such a tree is not a small project. */
const MAX_ENTRIES = 5_000;
const ROOT_FILES = ['agentform.yaml', 'agentform.yml'];

/**
 * The mode for a run with these arguments (after `node agentform.js`). AGENTFORM_V8_MODE=lean|parse|full
 * decides when set (the build trains each mode's caches that way). Otherwise the project is the
 * first argument (or -C/--dir value) that is a project directory, else the current directory.
 */
export function chooseV8Mode(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): V8ModeChoice {
  const forced = env.AGENTFORM_V8_MODE?.trim();
  const forcedMode = V8_MODES.find((mode) => mode === forced);
  if (forcedMode) return { mode: forcedMode, reason: 'AGENTFORM_V8_MODE' };
  for (const dir of [...directoryArguments(args), cwd]) {
    const yaml = projectYaml(dir, parseCacheDir(env, dir), { bytes: LEAN_MAX_YAML_BYTES, coldBytes: PARSE_MIN_COLD_YAML_BYTES });
    if (yaml === undefined) continue;
    // Parsing dominates any run that has much of it to do, whatever the project's size.
    if (yaml.coldBytes > PARSE_MIN_COLD_YAML_BYTES) return { mode: 'parse', reason: `over ${kilobytes(PARSE_MIN_COLD_YAML_BYTES)} of YAML changed since the parse cache last took an entry` };
    if (yaml.bytes > LEAN_MAX_YAML_BYTES) return { mode: 'full', reason: `a project of over ${kilobytes(LEAN_MAX_YAML_BYTES)} of YAML` };
    if (yaml.coldBytes > LEAN_MAX_COLD_YAML_BYTES) return { mode: 'full', reason: `over ${kilobytes(LEAN_MAX_COLD_YAML_BYTES)} of YAML changed since the parse cache last took an entry` };
    return { mode: 'lean', reason: `a project of ${kilobytes(yaml.bytes)} of YAML, ${kilobytes(yaml.coldBytes)} of it changed since the parse cache last took an entry` };
  }
  return { mode: 'full', reason: 'no project directory' };
}

/** Every argument that could name a directory: positionals, and the values of -C/--dir. */
function directoryArguments(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const [index, arg] of args.entries()) {
    if (arg.startsWith('--dir=')) out.push(arg.slice('--dir='.length));
    else if (!arg.startsWith('-')) out.push(arg);
    else if ((arg === '-C' || arg === '--dir') && args[index + 1] !== undefined) out.push(args[index + 1] as string);
  }
  return out;
}

export interface ProjectYaml {
  /** Bytes of YAML; Infinity for a tree too large to walk. */
  bytes: number;
  /** The part of `bytes` in files modified since the parse cache directory last changed (all of it without a cache). */
  coldBytes: number;
}

/**
 * The YAML of the project at `dir`: its root file and every *.yaml / *.yml below it, skipping
 * dot-directories and node_modules, as config/files.ts does; counted until either figure passes its
 * limit. Undefined when `dir` holds no agentform.yaml. Never throws: what cannot be read counts as
 * not a project.
 */
export function projectYaml(dir: string, cacheDir: string | undefined, limits: ProjectYaml): ProjectYaml | undefined {
  try {
    if (!ROOT_FILES.some((name) => isFile(join(dir, name)))) return undefined;
    const cachedUntil = cacheDir === undefined ? -Infinity : (statSync(cacheDir, { throwIfNoEntry: false })?.mtimeMs ?? -Infinity);
    const walk = { bytes: 0, coldBytes: 0, entries: 0, cachedUntil };
    addYaml(dir, walk, limits);
    return { bytes: walk.bytes, coldBytes: walk.coldBytes };
  } catch {
    return undefined;
  }
}

interface Walk extends ProjectYaml {
  entries: number;
  cachedUntil: number;
}

function addYaml(dir: string, walk: Walk, limits: ProjectYaml): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (walk.bytes > limits.bytes || walk.coldBytes > limits.coldBytes) return;
    walk.entries += 1;
    if (walk.entries > MAX_ENTRIES) {
      walk.bytes = Infinity;
      return;
    }
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.') && entry.name !== 'node_modules') addYaml(join(dir, entry.name), walk, limits);
    } else if (entry.isFile() && /\.ya?ml$/.test(entry.name)) {
      const stats = statSync(join(dir, entry.name));
      walk.bytes += stats.size;
      if (stats.mtimeMs >= walk.cachedUntil) walk.coldBytes += stats.size;
    }
  }
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

function kilobytes(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KB`;
}
