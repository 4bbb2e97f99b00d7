// The V8 flags a CLI run changes (v8-tuning.ts, young-generation.ts), set
// through here so that Node's own modules still load from their code cache.
//
// V8 checks a code cache against a hash of its flags, and Node ships the code caches of its
// built-in modules made under V8's defaults. Once a run had changed any flag, every built-in it
// loaded after that was compiled from its source instead: node:http (with net, streams and the
// rest of the HTTP client) took 5.2-5.7 ms to load instead of 1.8-2.3 ms, on every plan and apply
// (issue 17). So, once loadBuiltinsUnderV8Defaults() has run, a built-in is loaded with the changed
// flags set back to V8's defaults for the time it takes, then set again: nothing of ours is compiled
// or run meanwhile, and the bundle's chunks, whose caches are made under the run's own flags, load
// outside that window.
import Module, { isBuiltin } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type { NodeModuleInternals } from './node-module-internals.js';

/**
 * The V8 line every flag here was measured on, and DEFAULTS read from: Node 20's. Another V8 may not
 * know a flag at all (Node 22's and 24's print "unrecognized flag --interrupt-budget" on stderr for
 * each setting) or have other defaults and another optimum, so there no flag is set: the CLI runs
 * under that V8's own defaults until the tuning is measured again on it (issue 43).
 */
export const TUNED_V8 = '11.3';

/** Whether `version` (process.versions.v8 by default) is of the V8 line the flags were tuned on. */
export function isTunedV8(version: string = process.versions.v8): boolean {
  return version === TUNED_V8 || version.startsWith(`${TUNED_V8}.`);
}

const tuned = isTunedV8();

/** V8's defaults (TUNED_V8) for the flags a run may change. */
const DEFAULTS = {
  turbofan: true,
  sparkplug: true,
  'interrupt-budget': 67_584,
  'semi-space-growth-factor': 2,
} as const;

export type V8Flag = keyof typeof DEFAULTS;
type Value = boolean | number;

/** The flags that differ from V8's defaults now, with their values. */
const changed = new Map<V8Flag, Value>();

const spelled = (flag: V8Flag, value: Value): string => (typeof value === 'boolean' ? `--${value ? '' : 'no-'}${flag}` : `--${flag}=${value}`);

/** Sets one of V8's flags for the rest of the process (or until set again); nothing on another V8 than TUNED_V8. */
export function setV8Flag(flag: V8Flag, value: Value): void {
  if (!tuned) return;
  setFlagsFromString(spelled(flag, value));
  if (value === DEFAULTS[flag]) changed.delete(flag);
  else changed.set(flag, value);
}

/** The flags changed from V8's defaults, as set now. */
export function changedV8Flags(): string[] {
  return [...changed].map(([flag, value]) => spelled(flag, value));
}

/** Runs `load` with every changed flag set back to V8's default, and sets them again after. */
export function underV8Defaults<T>(load: () => T): T {
  if (changed.size === 0) return load();
  for (const flag of changed.keys()) setFlagsFromString(spelled(flag, DEFAULTS[flag]));
  try {
    return load();
  } finally {
    for (const [flag, value] of changed) setFlagsFromString(spelled(flag, value));
  }
}

/** What Node has loaded of its own, in order ("NativeModule net", ...): not in Node's type declarations. */
const moduleLoadList = (): readonly string[] => (process as unknown as { moduleLoadList?: string[] }).moduleLoadList ?? [];

let installed = false;

/**
 * From now on, every `require` of a built-in that Node has not loaded yet (by the bundle's chunks,
 * by packages, by createRequire) runs under V8's defaults. Through Module._load, where every
 * CommonJS require goes: the one place that sees them all. Once per process; for the CLI only.
 */
export function loadBuiltinsUnderV8Defaults(): void {
  if (installed) return;
  installed = true;
  const internals = Module as unknown as NodeModuleInternals;
  const load = internals._load;
  const seen = new Set<string>();
  internals._load = function loadBuiltinUnderDefaults(this: unknown, request: string, parent: unknown, isMain: boolean) {
    if (changed.size === 0 || seen.has(request) || !isBuiltin(request)) return load.call(this, request, parent, isMain);
    seen.add(request);
    // Loaded at start-up (node:fs, node:path, ...): compiled already, nothing to switch for.
    if (moduleLoadList().includes(`NativeModule ${request.replace(/^node:/, '')}`)) return load.call(this, request, parent, isMain);
    return underV8Defaults(() => load.call(this, request, parent, isMain));
  };
}
