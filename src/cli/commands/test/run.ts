import { resolve } from 'node:path';
import { loadProject, pickEnvironment } from '../../../config/index.js';
import { UserError } from '../../../errors.js';
import { countResults } from '../../../model/capability-test.js';
import { runCapabilityTests } from '../../../pipeline/capability-tests.js';
import { capabilityTestsToJson, renderCapabilityTestsJunit, renderCapabilityTestsText } from '../../../render/capability-tests.js';
import { paletteFor } from '../../../render/palette.js';
import { writeFileAtomic } from '../../../util/atomic-write.js';
import type { GlobalOptions } from '../../global-options.js';
import { printJson, useColor } from '../../terminal.js';
import type { TestCommandOptions } from './options.js';

/** Exit code like `terraform test`: 0 when every assertion passes, 1 on any failure or error. */
export async function runTest(dir: string, options: TestCommandOptions, globals: GlobalOptions): Promise<number> {
  if (options.allEnvs && options.env) throw new UserError('--all-envs and -e/--env cannot be combined');
  const project = await loadProject(resolve(dir), options.env ? { environment: options.env } : {});
  const environments = options.allEnvs ? Object.keys(project.environments) : [pickEnvironment(project, options.env)];
  const { files, report } = await runCapabilityTests(project, environments);
  if (options.junit) await writeFileAtomic(resolve(options.junit), renderCapabilityTestsJunit(report));
  if (options.json) printJson({ files, ...capabilityTestsToJson(report) });
  else if (files.length === 0) process.stdout.write('No capability test files (*.test.yaml) in the project: nothing to check.\n');
  else process.stdout.write(`${renderCapabilityTestsText(report, files.length, paletteFor(useColor(globals)))}\n`);
  const counts = countResults(report);
  return counts.fail + counts.error > 0 ? 1 : 0;
}
