#!/usr/bin/env node
// The command's entry in the bundle (dist/cli/agentform.js, the package's `bin`; scripts/build.mjs):
// start-up speed first (src/startup: how the bundle's code is compiled), then main.ts, which is what runs.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeStartUp, startUp } from '../startup/index.js';

const compiled = startUp(dirname(fileURLToPath(import.meta.url)));
if (process.argv.includes('--debug') || process.env.AGENTFORM_DEBUG === '1') {
  // At exit: the counts of chunks loaded from the cache are complete only then.
  process.on('exit', () => process.stderr.write(`[debug] ${describeStartUp(compiled)}\n`));
}
import('./main.js').catch((error: unknown) => {
  process.stderr.write(`agentform: internal error: ${String(error)}\n`);
  process.exitCode = 1;
});
