// Which V8 settings a CLI run starts with: v8-tuning.ts applies the choice before anything else loads.
//
// "lean" runs without TurboFan, V8's optimising compiler. A run over a small project calls nothing
// often enough for optimised code to pay off, yet V8 still optimised a couple of Node's own helpers
// (path separators, argument validation), and the first optimisation pages TurboFan's machine code
// in: a plan of 20 agents peaked at 54.6 MB RSS with it and 50.8 MB without (bare node: 38 MB), for
// the same CPU. Two things set the limits (issue 17 measured them, A/B on 2 cores):
// - The yaml library parsing what the parse cache does not hold (a fresh CI checkout, files just
//   edited) is the one loop TurboFan helps at these sizes: without it, validate from a cold cache
//   took as long at 73 KB of YAML, 3 % longer at 104 KB, 7 % at 137 KB, 15 % at 334 KB. So: at most
//   LEAN_MAX_COLD_YAML_BYTES of files that changed since the parse cache last took an entry and
//   look beyond the plain parser (below).
// - With the cache warm, plan and apply took the same time either way up to 2,000 agents (664 KB);
//   at 5,000 (1.7 MB) apply's first write came ~30 ms later and its CPU rose ~7 %. So: at most
//   LEAN_MAX_YAML_BYTES in all.
// "parse" is TurboFan at V8's own interrupt budget, for a run with more YAML for the yaml library to
// parse than lean allows: the library's parser is one hot loop, which TurboFan should optimise early,
// where the tuned budget (v8-tuning.ts) held it back. Validate from a cold cache, medians of 9
// interleaved runs, lean / full / parse: 115 KB 307 / 292 / 297 ms, 148 KB 368 / 344 / 333 ms, 182 KB
// 466 / 429 / 397 ms, 266 KB 633 / 542 / 447 ms. Plan from a cold cache at 20 ms, against the build
// before the parse mode (full): 1,000 agents 0.79-0.85 -> 0.67-0.70 s, 5,000 agents 2.57-2.88 ->
// 2.23-2.40 s, peak RSS +4 MB / -1 MB. V8's default young-generation growth on top made it another
// ~10 % faster, for 8 MB (1,000 agents) to 30 MB (5,000) more peak RSS: left out.
// Most YAML never reaches the library: config/yaml-plain.ts reads plain YAML itself, in one pass
// that TurboFan does not speed up (validate from a cold cache, lean / full / parse: 250 agents 64 /
// 64 / 81 ms, 500 84 / 81 / 95 ms, 1,000 129 / 127 / 129 ms, 2,000 202 / 191 / 218 ms), so only
// changed files that look beyond it (LIBRARY_YAML: tabs, anchors, tags, indented or kept blocks, ...) count
// towards these limits. A file the guess calls plain that the library ends up parsing costs time,
// nothing else.
// "small" is lean without Sparkplug either, V8's baseline compiler: everything runs in the
// interpreter. A small project's run is over before baseline code pays for its compiling: plan of 20
// agents 72.5 -> 70.0 ms wall, 0.7 MB less (medians of 61, interleaved, against lean), validate of 20
// 41.0 -> 39.5 ms, apply of 20 120 -> 114 ms. It stops paying off with the size of the project (warm plan,
// medians of 15-21: 39 KB of YAML -3 ms, 56 KB -1 to -4, 72 KB -1, 88 KB +2, 334 KB +14 ms) and
// sooner with YAML for the library to parse (validate from a cold cache: 13 KB +3 ms, 39 KB +21 ms;
// through the plain parser the same as lean: 13 KB 48.6 / 49.0 ms, 39 KB 59.8 / 59.0, 56 KB 62.9 /
// 65.1). So: at most SMALL_MAX_YAML_BYTES in all, SMALL_MAX_COLD_YAML_BYTES of it changed and
// beyond the plain parser.
// "full" keeps TurboFan with the tuned budget (v8-tuning.ts): a large project whose YAML the parse
// cache holds, and whenever the size of the work is not known from a project directory (a saved
// plan, a command that only talks to the API). Whether a file is in the parse cache would take
// hashing it to know; its modification time against the project's pack's (written again, whole, by
// every run that parsed anything; none: every file is cold) is the estimate, and a wrong guess only
// costs time.
//
// V8 accepts a code cache only under the flags it was made with, so each mode has its own caches
// (code-cache.ts; scripts/build.mjs trains them all).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseCachePack } from '../config/parse-cache-dir.js';

/** Every mode, in the order the build trains their code caches. */
export const V8_MODES = ['full', 'lean', 'parse', 'small'] as const;
export type V8Mode = (typeof V8_MODES)[number];

export interface V8ModeChoice {
  mode: V8Mode;
  /** Why, for `--debug`. */
  reason: string;
  /** Parse mode with enough YAML to parse afresh that its young generation may grow meanwhile (young-generation.ts). */
  growYoungGeneration?: boolean;
}

/** Lean runs have at most this much YAML for the yaml library to parse (changed, beyond the plain parser): ~250 agents. */
export const LEAN_MAX_COLD_YAML_BYTES = 96 * 1024;
/** ... and at most this much YAML in all: ~2,300 agents. */
export const LEAN_MAX_YAML_BYTES = 768 * 1024;
/** Small runs have at most this much YAML in all: ~130 agents. */
export const SMALL_MAX_YAML_BYTES = 48 * 1024;
/** ... and at most this much of it for the yaml library to parse: a couple of edited files. */
export const SMALL_MAX_COLD_YAML_BYTES = 8 * 1024;
/** A parse-mode run with more YAML than this for the library to parse lets its young generation grow while parsing: ~750 agents. */
export const GROW_YOUNG_MIN_COLD_YAML_BYTES = 256 * 1024;
/** Changed files are read for LIBRARY_YAML up to this much; the rest are assumed alike (ProjectYaml). */
export const LOOK_MAX_BYTES = 128 * 1024;
/** A walk that meets more directory entries than this stops: such a tree is not a small project. */
const MAX_ENTRIES = 5_000;
// As config/files.ts names them; not imported from there, which would load it (and what it imports)
// before the bundle's code caches are in place.
const ROOT_FILES = ['agentform.yaml', 'agentform.yml'];
const LOCK_FILE = 'agentform.lock.yaml';

/**
 * The mode for a run with these arguments (after `node agentform.js`). AGENTFORM_V8_MODE=small|lean|full|parse
 * decides when set (the build trains each mode's caches that way). Otherwise the project is the
 * first argument (or -C/--dir value) that is a project directory, else the current directory.
 */
export function chooseV8Mode(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): V8ModeChoice {
  const forced = env.AGENTFORM_V8_MODE?.trim();
  const forcedMode = V8_MODES.find((mode) => mode === forced);
  if (forcedMode) return { mode: forcedMode, reason: 'AGENTFORM_V8_MODE' };
  for (const dir of [...directoryArguments(args), cwd]) {
    // The whole tree (up to MAX_ENTRIES) until enough YAML for the library is found: a large project
    // whose edited files come late in the walk must still run parse.
    const project = parseCachePack(env, dir);
    const packs = project === undefined ? undefined : { project, lock: parseCachePack(env, dir, 'lock') as string };
    const yaml = projectYaml(dir, packs, { bytes: Infinity, libraryColdBytes: GROW_YOUNG_MIN_COLD_YAML_BYTES });
    if (yaml === undefined) continue;
    // Parsing dominates any run that has much of it to do, whatever the project's size.
    const forLibrary = 'of changed YAML that looks beyond the plain parser';
    if (yaml.libraryColdBytes > GROW_YOUNG_MIN_COLD_YAML_BYTES) {
      return {
        mode: 'parse',
        reason: `over ${kilobytes(GROW_YOUNG_MIN_COLD_YAML_BYTES)} ${forLibrary}; the young generation grows while parsing`,
        growYoungGeneration: true,
      };
    }
    if (yaml.libraryColdBytes > LEAN_MAX_COLD_YAML_BYTES) return { mode: 'parse', reason: `over ${kilobytes(LEAN_MAX_COLD_YAML_BYTES)} ${forLibrary}` };
    if (yaml.bytes > LEAN_MAX_YAML_BYTES) return { mode: 'full', reason: `a project of over ${kilobytes(LEAN_MAX_YAML_BYTES)} of YAML` };
    const size = `a project of ${kilobytes(yaml.bytes)} of YAML, ${kilobytes(yaml.coldBytes)} of it changed since the parse cache last took an entry, ${kilobytes(yaml.libraryColdBytes)} of that beyond the plain parser`;
    return { mode: yaml.bytes <= SMALL_MAX_YAML_BYTES && yaml.libraryColdBytes <= SMALL_MAX_COLD_YAML_BYTES ? 'small' : 'lean', reason: size };
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
  /** The part of `bytes` in files modified since the project's parse cache was last written (all of it without one). */
  coldBytes: number;
  /**
   * The part of `coldBytes` in files that look beyond the plain parser (LIBRARY_YAML): counted over
   * the first LOOK_MAX_BYTES of changed files, and for the rest assumed in the same share (reading
   * every changed file of a fresh checkout of 5,000 agents cost ~16 ms; a project's files are
   * mostly written alike, and a wrong guess only costs time).
   */
  libraryColdBytes: number;
}

/** Where the walk may stop: either figure past its limit. */
export type WalkLimits = Pick<ProjectYaml, 'bytes' | 'libraryColdBytes'>;

/**
 * A quick guess at whether the yaml library, not config/yaml-plain.ts, will parse a file (which
 * would take reading it through): tabs, a CR that does not end a line, an anchor, alias or tag at a
 * token's start, a block header with an indicator (`|+`, `>2`), a directive, a complex key. What it
 * misses (multi-line quoted scalars, say) only costs the run time.
 */
export const LIBRARY_YAML = /\t|\r(?!\n)|(?:^|[ ,[{])[&*!][^ \n,[\]{}]|(?:^| )[>|](?=[-+]?[0-9]|-?\+)[-+0-9]*[ ]*(?:#.*)?$|^%|^[ ]*\? /m;

/** The parse cache's packs (parse-cache-dir.ts): the project's files', and the tool-surface lock's, read and written apart. */
export interface CachePacks {
  project: string;
  lock: string;
}

/**
 * The YAML of the project at `dir`: its root file and every *.yaml / *.yml below it, skipping
 * dot-files, dot-directories and node_modules, as config/files.ts does; counted until either figure passes its
 * limit. Undefined when `dir` holds no agentform.yaml. Never throws: what cannot be read counts as
 * not a project.
 */
export function projectYaml(dir: string, packs: CachePacks | undefined, limits: WalkLimits): ProjectYaml | undefined {
  try {
    if (!ROOT_FILES.some((name) => isFile(join(dir, name)))) return undefined;
    const writtenAt = (pack: string | undefined) => (pack === undefined ? -Infinity : (statSync(pack, { throwIfNoEntry: false })?.mtimeMs ?? -Infinity));
    const walk: Walk = {
      bytes: 0,
      coldBytes: 0,
      libraryColdBytes: 0,
      lookedAt: 0,
      lookedAtLibrary: 0,
      entries: 0,
      cachedUntil: writtenAt(packs?.project),
      lockCachedUntil: writtenAt(packs?.lock),
      root: dir,
    };
    addYaml(dir, walk, limits);
    return { bytes: walk.bytes, coldBytes: walk.coldBytes, libraryColdBytes: walk.libraryColdBytes };
  } catch {
    return undefined;
  }
}

interface Walk extends ProjectYaml {
  /** Bytes of changed files read for LIBRARY_YAML, and those of them it matched. */
  lookedAt: number;
  lookedAtLibrary: number;
  entries: number;
  cachedUntil: number;
  /** The lock file beside the root file is cached in a pack of its own. */
  lockCachedUntil: number;
  root: string;
}

function addYaml(dir: string, walk: Walk, limits: WalkLimits): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (walk.bytes > limits.bytes || walk.libraryColdBytes > limits.libraryColdBytes) return;
    walk.entries += 1;
    if (walk.entries > MAX_ENTRIES) {
      walk.bytes = Infinity;
      return;
    }
    // As isSkippedEntry in config/files.ts: dot-files and dot-directories, and node_modules/.
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') addYaml(join(dir, entry.name), walk, limits);
    } else if (entry.isFile() && /\.ya?ml$/.test(entry.name)) {
      const stats = statSync(join(dir, entry.name));
      walk.bytes += stats.size;
      const cachedUntil = dir === walk.root && entry.name === LOCK_FILE ? walk.lockCachedUntil : walk.cachedUntil;
      if (stats.mtimeMs >= cachedUntil) {
        walk.coldBytes += stats.size;
        if (walk.lookedAt < LOOK_MAX_BYTES) {
          walk.lookedAt += stats.size;
          // latin1: the guess looks only for ASCII, and decoding UTF-8 would cost more than reading.
          if (LIBRARY_YAML.test(readFileSync(join(dir, entry.name), 'latin1'))) walk.lookedAtLibrary += stats.size;
        }
        const share = walk.lookedAt === 0 ? 0 : walk.lookedAtLibrary / walk.lookedAt;
        walk.libraryColdBytes = walk.lookedAtLibrary + Math.round((walk.coldBytes - walk.lookedAt) * share);
      }
    }
  }
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

function kilobytes(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KB`;
}
