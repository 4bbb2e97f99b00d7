import { resolve } from 'node:path';
import { desiredStateFor, loadProject, pickEnvironment } from '../../../config/index.js';
import { renderFindingAnnotations, renderFindingsText, safetyToJson } from '../../../render/safety.js';
import { paletteFor } from '../../../render/palette.js';
import { readToolLock, reviewEnvironment, wantsAnnotations } from '../../../safety/index.js';
import { applyStrictTools } from '../../../pipeline/strict-tools.js';
import type { GlobalOptions } from '../../global-options.js';
import { useColor } from '../../terminal.js';
import type { CheckCommandOptions } from './options.js';

export async function runCheck(dir: string, options: CheckCommandOptions, globals: GlobalOptions): Promise<number> {
  const project = await loadProject(resolve(dir));
  const environment = pickEnvironment(project, options.env);
  // Strict mode: judge the tool policies apply would send (derived from the lock), as plan does.
  const { desired } = await applyStrictTools(desiredStateFor(project, environment, process.env));
  const review = reviewEnvironment({ project, desired, lock: await readToolLock(project.dir) });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(safetyToJson(review), null, 2)}\n`);
  } else {
    const lines = renderFindingsText(review, paletteFor(useColor(globals)));
    if (wantsAnnotations(process.env)) lines.push(...renderFindingAnnotations(review));
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return review.counts.errors > 0 ? 1 : 0;
}
