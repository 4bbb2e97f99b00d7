#!/usr/bin/env node
// The command's entry in the bundle (dist/cli/agentform.js, the package's `bin`; scripts/build.mjs).
// Before the CLI itself loads: the V8 settings (which a code cache must be made and used under), then
// `require` of the bundle's chunks through the code caches made under those settings. main.ts is what runs.
import { isCodeCacheTrainingRun, isServerRun, v8Choice } from '../util/v8-tuning.js';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useBundleCodeCache } from '../util/code-cache.js';
import { isTunedV8, TUNED_V8 } from '../util/v8-flags.js';

// The build's training runs write the caches. `agentform server` runs under V8's defaults (no CLI
// mode), with caches of its own: a fresh server compiled its request path while answering its first
// requests, which held up the first writes of an apply.
const stats = useBundleCodeCache(dirname(fileURLToPath(import.meta.url)), {
  write: isCodeCacheTrainingRun,
  set: isServerRun ? 'server' : (v8Choice?.mode ?? 'full'),
});
if (process.argv.includes('--debug') || process.env.AGENTFORM_DEBUG === '1') {
  process.on('exit', () => {
    // The mode still picks the code caches on another V8, whose flags stay at its defaults (v8-flags.ts).
    const untuned = isTunedV8() ? '' : `; its flags not set: V8 ${process.versions.v8} is not the ${TUNED_V8} they were tuned on`;
    const mode = v8Choice ? `; V8 ${v8Choice.mode} (${v8Choice.reason})${untuned}` : isServerRun ? '; V8 defaults (server)' : '';
    process.stderr.write(
      `[debug] start-up: ${stats.fromCache} bundle files compiled from the V8 code cache, ${stats.compiled} without one, ${stats.rejected} whose cache V8 rejected${mode}\n`,
    );
  });
}
import('./main.js').catch((error: unknown) => {
  process.stderr.write(`agentform: internal error: ${String(error)}\n`);
  process.exitCode = 1;
});
