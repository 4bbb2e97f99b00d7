// `agentform export`'s closing summary.
import { join } from 'node:path';
import type { ExportResult, ExportTarget } from '../export/index.js';
import { visible } from './visible.js';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** What was exported, the variables the project reads, and notes; `outLabel` as the user named the directory. */
export function renderExportSummary(result: ExportResult, target: ExportTarget, where: { outLabel: string; schemasDir: string }): string {
  const { outLabel } = where;
  const c = result.counts;
  const parts = [
    plural(c.provider ?? 0, 'provider'),
    plural(c.secret ?? 0, 'secret'),
    `${plural(c.connection ?? 0, 'connection')} (${plural(c.grant ?? 0, 'grant')})`,
    plural(c.agent ?? 0, 'agent'),
    plural(c.apiKey ?? 0, 'API key'),
  ];
  const lines = [
    `Exported environment ${target.slug} to ${outLabel}: ${parts.join(', ')}.`,
    `Wrote ${plural(result.files.length, 'file')}, and the JSON Schemas for editors in ${where.schemasDir}.`,
  ];
  if (result.envVars.length > 0) {
    const width = Math.max(...result.envVars.map((need) => need.name.length));
    lines.push('', 'The project reads these environment variables (set them before plan or apply):');
    for (const need of result.envVars) lines.push(`  ${need.name.padEnd(width)}  ${need.purpose}`);
  }
  if (target.url === 'local') {
    lines.push(
      '',
      `Note: url is "local": the exported project uses the local control plane in ${join(outLabel, '.agentform', 'local')}, not the one it was exported from.`,
    );
  }
  for (const note of result.notes) lines.push(`Note: ${note}`);
  // Slugs, names and notes come from the server: no line of theirs may move the cursor or forge another.
  return lines.map(visible).join('\n');
}
