// Build step (`npm run build`, after tsc): writes the precompiled schema validators next to the
// built schemas.js, where validators() looks for them. Atomic, so a concurrent run never loads half a file.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../util/atomic-write.js';
import { precompiledValidatorsCode } from './schemas-precompile.js';
import { PRECOMPILED_FILE } from './schemas.js';

await writeFileAtomic(join(dirname(fileURLToPath(import.meta.url)), PRECOMPILED_FILE), precompiledValidatorsCode());
