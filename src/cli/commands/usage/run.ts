import { UserError } from '../../../errors.js';
import { paletteFor } from '../../../render/palette.js';
import { computeUsage, renderUsageCsv, renderUsageTable, usageJson } from '../../../render/ops/usage.js';
import type { GlobalOptions } from '../../global-options.js';
import { withConnection } from '../../../connect/project.js';
import { parseUsagePeriod, periodDays } from './period.js';
import type { UsageOptions } from './options.js';
import { printJson, useColor } from '../../terminal.js';

export async function runUsage(options: UsageOptions, globals: GlobalOptions): Promise<void> {
  if (options.csv && options.json) throw new UserError('choose one of --csv and --json');
  // The period is checked before connecting: a typo costs no request.
  const period = parseUsagePeriod(
    { ...(options.from !== undefined ? { from: options.from } : {}), ...(options.to !== undefined ? { to: options.to } : {}) },
    new Date(),
  );
  await withConnection(options, globals, async ({ client }) => {
    const rows = await client.call('usage.keys', { period });
    const usage = computeUsage(rows, periodDays(period));
    if (options.json) printJson(usageJson(usage, period));
    else if (options.csv) process.stdout.write(`${renderUsageCsv(usage)}\r\n`);
    else process.stdout.write(`${renderUsageTable(usage, period, paletteFor(useColor(globals)))}\n`);
  });
}
