#!/usr/bin/env node
// The command's entry in the bundle (dist/cli/agentform.js, the package's `bin`; scripts/build.mjs).
// Before the CLI itself loads: the V8 settings (which a code cache must be made and used under), then
// `require` of the bundle's chunks through the code caches made under those settings. main.ts is what runs.
import { isServerRun, v8Choice } from '../util/v8-tuning.js';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useBundleCodeCache } from '../util/code-cache.js';

// The build's training runs write the caches; `agentform server` runs with other V8 settings, under
// which every cache would be rejected after being read.
const write = process.env.AGENTFORM_WRITE_CODE_CACHE === '1';
const stats = isServerRun && !write ? undefined : useBundleCodeCache(dirname(fileURLToPath(import.meta.url)), { write, mode: v8Choice?.mode ?? 'full' });
if (stats && (process.argv.includes('--debug') || process.env.AGENTFORM_DEBUG === '1')) {
  process.on('exit', () => {
    const mode = v8Choice ? `; V8 ${v8Choice.mode} (${v8Choice.reason})` : '';
    process.stderr.write(`[debug] start-up: ${stats.fromCache} bundle files compiled from the V8 code cache, ${stats.compiled} without one, ${stats.rejected} whose cache V8 rejected${mode}\n`);
  });
}
import('./main.js').catch((error: unknown) => {
  process.stderr.write(`agentform: internal error: ${String(error)}\n`);
  process.exitCode = 1;
});
