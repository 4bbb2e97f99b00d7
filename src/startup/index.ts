// Start-up speed for the CLI's bundle, and only that: imported by the entry point (cli/bin.ts) and by
// nothing else, so that removing it is deleting this folder and one line there.
//
// Compiling the bundle's chunks is most of a small run's own time. Node >= 22.1 keeps compiled code
// on disk itself (module.enableCompileCache); older Node gets the code caches the build trained
// (bundle-code-cache.ts). And V8's settings suit a short run (v8-settings.ts).
// AGENTFORM_OPTIMIZATIONS=off: none of it.
import module from 'node:module';
import { optimizationsOff } from '../util/optimizations.js';
import { type BundleCacheStats, codeCacheSuffix, useBundleCodeCache } from './bundle-code-cache.js';
import { applyV8Settings, runKindOf } from './v8-settings.js';

/** How this run compiles its code, for `--debug`. */
export type StartUp = { cache: 'off' } | { cache: 'platform'; directory: string | undefined; status: string } | { cache: 'bundle'; stats: BundleCacheStats };

/** Node's compile cache, where this Node has one (module.enableCompileCache is not in Node 20's types). */
type EnableCompileCache = (directory?: string) => { status: number; message?: string; directory?: string };
const enableCompileCache = (module as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
const COMPILE_CACHE_STATUS = ['failed', 'enabled', 'already enabled', 'disabled'];

/**
 * Sets up how the bundle in `bundleDir` is compiled, before any of it loads. A training run
 * (AGENTFORM_WRITE_CODE_CACHE=1, scripts/build.mjs) writes the bundle's own caches, whatever the Node.
 */
export function startUp(bundleDir: string, env: NodeJS.ProcessEnv = process.env, args: readonly string[] = process.argv.slice(2)): StartUp {
  if (optimizationsOff(env, 'startup')) return { cache: 'off' };
  // First: V8 accepts a code cache only under the flags it was made with, and the build trains each kind of run's under its own.
  const kind = runKindOf(args);
  applyV8Settings(kind);
  const training = env.AGENTFORM_WRITE_CODE_CACHE === '1';
  if (enableCompileCache && !training) {
    const result = enableCompileCache();
    return { cache: 'platform', directory: result.directory, status: COMPILE_CACHE_STATUS[result.status] ?? String(result.status) };
  }
  // Counted as the chunks load: read them at exit.
  return { cache: 'bundle', stats: useBundleCodeCache(bundleDir, { write: training, suffix: codeCacheSuffix(kind) }) };
}

/** The `--debug` line that says how the run was compiled. */
export function describeStartUp(startUp: StartUp): string {
  switch (startUp.cache) {
    case 'off':
      return "start-up: no code cache, V8's defaults (AGENTFORM_OPTIMIZATIONS)";
    case 'platform':
      return `start-up: Node's compile cache, ${startUp.status}${startUp.directory ? ` (${startUp.directory})` : ''}`;
    case 'bundle':
      return `start-up: ${startUp.stats.fromCache} bundle files compiled from the V8 code cache, ${startUp.stats.compiled} without one, ${startUp.stats.rejected} whose cache V8 rejected`;
  }
}
