// Build step (`npm run build`, after tsc and again after bundling): writes the precompiled schema
// validators where validators() looks for them, and the local control plane's request validators
// where server/validate.ts looks for them: beside the code that loads them, whichever layout this
// runs from (dist/src after tsc, dist/cli in the bundle). Atomic, so a concurrent run never loads half a file.
import { writeFileAtomic } from '../util/atomic-write.js';
import { precompiledValidatorsCode } from './schemas-precompile.js';
import { precompiledSpecsPath, precompiledValidatorsPath } from '../config/schemas.js';
import { apiPrecompiledPath, apiValidatorsCode } from '../server/validate.js';

// No top-level await: the bundle this also runs from is CommonJS (scripts/build.mjs).
Promise.all([
  writeFileAtomic(precompiledValidatorsPath(), precompiledValidatorsCode('documents')),
  writeFileAtomic(precompiledSpecsPath(precompiledValidatorsPath()), precompiledValidatorsCode('specs')),
  writeFileAtomic(apiPrecompiledPath(), apiValidatorsCode()),
]).catch((error: unknown) => {
  process.stderr.write(`write-precompiled-schemas: ${String(error)}\n`);
  process.exitCode = 1;
});
