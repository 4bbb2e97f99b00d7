// Table for `agentform sandboxes`.
import type { Sandbox } from '../../model/api.js';
import { formatSince, formatTable, oneLine, orNone } from './format.js';

export function renderSandboxes(sandboxes: readonly Sandbox[], now: Date): string {
  if (sandboxes.length === 0) return 'No sandboxes.';
  const rows = sandboxes.map((sandbox) => [
    sandbox.id,
    sandbox.error ? `${sandbox.state} (${oneLine(sandbox.error, 40)})` : sandbox.state,
    orNone(sandbox.provider),
    orNone(sandbox.ownerSessionId),
    formatSince(sandbox.idleSince, now),
    String(sandbox.snapshots?.length ?? 0),
  ]);
  return formatTable(
    [
      { header: 'SANDBOX' },
      { header: 'STATE' },
      { header: 'PROVIDER' },
      { header: 'OWNER SESSION' },
      { header: 'IDLE SINCE' },
      { header: 'SNAPSHOTS', align: 'right' },
    ],
    rows,
  );
}
