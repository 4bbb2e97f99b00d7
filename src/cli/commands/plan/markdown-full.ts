// plan --markdown --markdown-full FILE: the whole comment, uncut, for the CI job to keep as an
// artifact, which the cut comment then points at. Written like --out: atomically, once planned.
import { resolve } from 'node:path';
import { writeFileAtomic } from '../../../util/atomic-write.js';

export async function writeFullComment(file: string, comment: string): Promise<void> {
  await writeFileAtomic(resolve(file), `${comment}\n`);
  process.stderr.write(`Wrote the whole comment, uncut, to ${file}\n`);
}
