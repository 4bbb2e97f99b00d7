import { openProjectOrDirect } from '../../../connect/project.js';
import { renderIdentity } from '../../../render/identity.js';
import { describeIdentity } from '../../../state/identity.js';
import type { GlobalOptions } from '../../global-options.js';
import type { OpsOptions } from '../../ops-options.js';
import { printJson } from '../../terminal.js';

export async function runWhoami(options: OpsOptions, globals: GlobalOptions): Promise<void> {
  const connected = await openProjectOrDirect(options, globals);
  try {
    const identity = await describeIdentity(connected.client, connected.credential, connected.environment);
    if (options.json) printJson(identity);
    else process.stdout.write(`${renderIdentity(identity)}\n`);
  } finally {
    await connected.close();
  }
}
