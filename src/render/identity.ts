// `agentform whoami` as a table, with a note for each thing that could not be learned.
import type { Identity } from '../model/identity.js';
import { renderTable } from './table.js';
import { visible } from './visible.js';

export function renderIdentity(identity: Identity): string {
  const { organization, environment, key, scopes } = identity;
  const rows: string[][] = [
    ['organization', organization ? `${organization.name} (${organization.slug}, ${organization.id})` : 'unknown'],
    ['environment', environment ? `${environment.slug}${environment.id ? ` (${environment.id})` : ''}` : 'unknown'],
    ['credential', identity.credential === 'cookie' ? 'session cookie' : key ? `API key ${key.name} (${key.id})` : 'API key'],
    ['scopes', scopes ? scopes.join(', ') || '(none)' : 'unknown'],
  ];
  if (key?.expiresAt) rows.push(['expires', key.expiresAt]);
  return [renderTable(['FIELD', 'VALUE'], rows), ...identity.notes.map((note) => `note: ${visible(note)}`)].join('\n');
}
