// Which V8 settings a CLI run starts with: v8-tuning.ts applies the choice before anything else loads.
//
// "lean" runs without TurboFan, V8's optimising compiler. A run over a small project calls nothing
// often enough for optimised code to pay off, yet V8 still optimised a couple of Node's own helpers
// (path separators, argument validation), and the first optimisation pages TurboFan's machine code
// in: a plan of 20 agents peaked at 54.6 MB RSS with it and 50.8 MB without (bare node: 38 MB), for
// the same CPU. What sets the limit is parsing YAML that the parse cache does not hold (a fresh CI
// checkout): the parser is the one hot loop, and without TurboFan validate took as long at 73 KB of
// YAML, 3 % longer at 104 KB, 7 % at 137 KB, 15 % at 334 KB. With the cache warm, plan and apply of
// 1,000 agents (334 KB) took the same time either way. Issue 17 measured all of this.
// "full" keeps TurboFan: for projects over LEAN_MAX_YAML_BYTES, and whenever the size of the work is
// not known from a project directory (a saved plan, a command that only talks to the API).
//
// V8 accepts a code cache only under the flags it was made with, so each mode has its own caches
// (code-cache.ts; scripts/build.mjs trains both).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export type V8Mode = 'lean' | 'full';

export interface V8ModeChoice {
  mode: V8Mode;
  /** Why, for `--debug`. */
  reason: string;
}

/** Projects with at most this much YAML run lean: ~250 agents. */
export const LEAN_MAX_YAML_BYTES = 96 * 1024;
/** A walk that meets more directory entries than this stops: such a tree is not a small project. */
const MAX_ENTRIES = 5_000;
const ROOT_FILES = ['agentform.yaml', 'agentform.yml'];

/**
 * The mode for a run with these arguments (after `node agentform.js`). AGENTFORM_V8_MODE=lean|full
 * decides when set (the build trains each mode's caches that way). Otherwise the project is the
 * first argument (or -C/--dir value) that is a project directory, else the current directory.
 */
export function chooseV8Mode(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): V8ModeChoice {
  const forced = env.AGENTFORM_V8_MODE?.trim();
  if (forced === 'lean' || forced === 'full') return { mode: forced, reason: 'AGENTFORM_V8_MODE' };
  for (const dir of [...directoryArguments(args), cwd]) {
    const bytes = projectYamlBytes(dir, LEAN_MAX_YAML_BYTES);
    if (bytes === undefined) continue;
    return bytes <= LEAN_MAX_YAML_BYTES
      ? { mode: 'lean', reason: `a project of ${kilobytes(bytes)} of YAML` }
      : { mode: 'full', reason: `a project of over ${kilobytes(LEAN_MAX_YAML_BYTES)} of YAML` };
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

/**
 * The bytes of YAML in the project at `dir` (its root file and every *.yaml / *.yml below it,
 * skipping dot-directories and node_modules, as config/files.ts does), counted until they pass
 * `limit`; Infinity for a tree too large to walk; undefined when `dir` holds no agentform.yaml.
 * Never throws: what cannot be read counts as not a project.
 */
export function projectYamlBytes(dir: string, limit: number): number | undefined {
  try {
    if (!ROOT_FILES.some((name) => isFile(join(dir, name)))) return undefined;
    const walk = { bytes: 0, entries: 0 };
    addYamlBytes(dir, walk, limit);
    return walk.bytes;
  } catch {
    return undefined;
  }
}

function addYamlBytes(dir: string, walk: { bytes: number; entries: number }, limit: number): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (walk.bytes > limit) return;
    walk.entries += 1;
    if (walk.entries > MAX_ENTRIES) {
      walk.bytes = Infinity;
      return;
    }
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.') && entry.name !== 'node_modules') addYamlBytes(join(dir, entry.name), walk, limit);
    } else if (entry.isFile() && /\.ya?ml$/.test(entry.name)) {
      walk.bytes += statSync(join(dir, entry.name)).size;
    }
  }
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

function kilobytes(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KB`;
}
