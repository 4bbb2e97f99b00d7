// Tables for `agentform connections test` and `agentform connections grants`.
// Grants never carry token values (the API does not return them); only whether a refresh token exists.
import type { ConnectionGrant, ToolDescriptor } from '../../model/api.js';
import { formatIdentity, formatTable, formatUntil, oneLine, orNone, plural } from './format.js';

/** The MCP tool annotations as short words: read-only, destructive, idempotent, open-world. */
export function annotationWords(annotations: ToolDescriptor['annotations']): string {
  if (!annotations) return '-';
  const words: string[] = [];
  if (annotations.readOnlyHint === true) words.push('read-only');
  if (annotations.destructiveHint === true) words.push('destructive');
  if (annotations.idempotentHint === true) words.push('idempotent');
  if (annotations.openWorldHint === true) words.push('open-world');
  return words.length === 0 ? '-' : words.join(', ');
}

export function renderTools(connection: string, tools: readonly ToolDescriptor[]): string {
  const heading = `Connection ${connection} answered with ${plural(tools.length, 'tool')}.`;
  if (tools.length === 0) return heading;
  const rows = [...tools]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((tool) => [tool.name, orNone(tool.annotations?.title), annotationWords(tool.annotations), oneLine(tool.description, 60)]);
  return `${heading}\n\n${formatTable([{ header: 'TOOL' }, { header: 'TITLE' }, { header: 'ANNOTATIONS' }, { header: 'DESCRIPTION' }], rows)}`;
}

export function renderGrants(grants: readonly ConnectionGrant[], now: Date): string {
  if (grants.length === 0) return 'No grants.';
  const rows = grants.map((grant) => [
    grant.id,
    grant.connection ?? grant.connectionId,
    formatIdentity(grant.identity),
    grant.error ? `${orNone(grant.status)} (${oneLine(grant.error, 40)})` : orNone(grant.status),
    grant.scopes && grant.scopes.length > 0 ? grant.scopes.join(' ') : '-',
    grant.hasRefreshToken === undefined ? '-' : grant.hasRefreshToken ? 'yes' : 'no',
    formatUntil(grant.expiresAt, now),
  ]);
  return formatTable(
    [
      { header: 'GRANT' },
      { header: 'CONNECTION' },
      { header: 'IDENTITY' },
      { header: 'STATUS' },
      { header: 'SCOPES' },
      { header: 'REFRESH' },
      { header: 'EXPIRES' },
    ],
    rows,
  );
}
