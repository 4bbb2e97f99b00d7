// Output of `agentform keys create` and `agentform keys revoke`. The token is never an input here:
// these renderers cannot print it by mistake. (`--show-token` prints it on its own line, in the command.)
import type { ApiKey, SpendCaps } from '../../model/api.js';
import { formatFields, formatTime } from './format.js';

function spendText(spend: SpendCaps | undefined): string | undefined {
  if (!spend) return undefined;
  const parts = [
    spend.tokensPerMonth !== undefined ? `${spend.tokensPerMonth} tokens/month` : undefined,
    spend.agentMinutesPerMonth !== undefined ? `${spend.agentMinutesPerMonth} agent minutes/month` : undefined,
    spend.dailyUsd !== undefined ? `$${spend.dailyUsd}/day` : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

export function renderKey(key: ApiKey): string {
  return formatFields([
    ['Key', key.id],
    ['Name', key.name],
    ['Prefix', key.prefix],
    ['Scopes', key.scopes.join(', ')],
    ['Identity scopes', key.identityScopes && key.identityScopes.length > 0 ? key.identityScopes.join(', ') : undefined],
    ['Spend caps', spendText(key.spend)],
    ['Created', key.createdAt ? formatTime(key.createdAt) : undefined],
    ['Expires', key.expiresAt ? formatTime(key.expiresAt) : 'never'],
    ['Revoked', key.revokedAt ? formatTime(key.revokedAt) : undefined],
  ]);
}

/** Where the token went, said without the token. */
export function renderCreatedKey(key: ApiKey, tokenFile: string | undefined): string {
  const where = tokenFile
    ? `The token was written to ${tokenFile} (mode 0600). It is shown nowhere else and cannot be read again.`
    : 'The token follows on the next line; it cannot be read again.';
  return `Created API key ${key.name}.\n\n${renderKey(key)}\n\n${where}`;
}

export function renderRevokedKey(key: ApiKey): string {
  return `Revoked API key ${key.name}.\n\n${renderKey(key)}`;
}
