// Build step (`npm run build`, after tsc): writes the precompiled schema validators next to the
// built schemas.js, where validators() looks for them, and the local control plane's request
// validators next to the built server/validate.js. Atomic, so a concurrent run never loads half a file.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../util/atomic-write.js';
import { precompiledValidatorsCode } from './schemas-precompile.js';
import { PRECOMPILED_FILE } from './schemas.js';
import { API_PRECOMPILED_FILE, apiValidatorsCode } from '../server/validate.js';

await writeFileAtomic(join(dirname(fileURLToPath(import.meta.url)), PRECOMPILED_FILE), precompiledValidatorsCode());
await writeFileAtomic(join(dirname(fileURLToPath(import.meta.url)), '..', 'server', API_PRECOMPILED_FILE), apiValidatorsCode());
