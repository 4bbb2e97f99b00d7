// The local plane's rule for apiKeys.create beyond scopes: a key can only create keys within its
// own bounds. Each spend cap the creating key has, and its expiry, bind the new key: a bound the
// request leaves out (or sends as null) is the creator's, a wider one is refused with 403 naming
// the field. Otherwise a key capped at $1 a day and an hour of life could mint an uncapped,
// never-expiring one and outlive its own limits.
import type { SpendCaps } from '../model/api.js';
import { ServiceError } from './service-error.js';

const SPEND_CAPS = ['agentMinutesPerMonth', 'tokensPerMonth', 'dailyUsd'] as const satisfies ReadonlyArray<keyof SpendCaps>;

/** What a credential's key is limited to: its spend caps (absent: none) and expiry (null: none). */
export interface KeyBounds {
  spend: SpendCaps;
  expiresAt: string | null;
}

/** Bounds from a key row's stored JSON `spend` and its `expires_at`. */
export function keyBoundsOf(spendJson: string, expiresAt: string | null): KeyBounds {
  const stored = JSON.parse(spendJson) as Record<string, unknown> | null;
  const spend: KeyBounds['spend'] = {};
  for (const cap of SPEND_CAPS) {
    const value = stored?.[cap];
    if (typeof value === 'number') spend[cap] = value;
  }
  return { spend, expiresAt };
}

/** A spend cap sent as null means "left out", like an absent one. */
type RequestedSpend = { [cap in keyof SpendCaps]?: number | null };
interface RequestedKey {
  spend?: RequestedSpend | null;
  expiresAt?: string | null;
}

/**
 * The request with every bound it leaves out (or sends as null) taken from the creator. Done before
 * the profile's defaults, so a profile default wider than the creator's cap is never what is checked.
 */
export function inheritBounds<K extends RequestedKey>(key: K, creator: KeyBounds): K {
  const spend: RequestedSpend = { ...(key.spend ?? {}) };
  for (const cap of SPEND_CAPS) {
    const own = creator.spend[cap];
    if (own !== undefined && (spend[cap] === undefined || spend[cap] === null)) spend[cap] = own;
  }
  const out: K = { ...key };
  if (key.spend !== undefined || Object.keys(spend).length > 0) out.spend = spend;
  if (creator.expiresAt !== null && (key.expiresAt === undefined || key.expiresAt === null)) out.expiresAt = creator.expiresAt;
  return out;
}

/** Refuses a key (as it will be stored) that reaches past one of its creator's bounds. */
export function assertWithinBounds(key: RequestedKey, creator: KeyBounds): void {
  for (const cap of SPEND_CAPS) {
    const own = creator.spend[cap];
    if (own === undefined) continue;
    const asked = key.spend?.[cap];
    if (typeof asked !== 'number' || asked > own) {
      throw new ServiceError('permission_denied', `key.spend.${cap}: a key can only create keys within its own bounds; this one's ${cap} is capped at ${own}`, {
        field: `key.spend.${cap}`,
        bound: own,
      });
    }
  }
  if (creator.expiresAt === null) return;
  if (!key.expiresAt || Date.parse(key.expiresAt) > Date.parse(creator.expiresAt)) {
    throw new ServiceError('permission_denied', `key.expiresAt: a key can only create keys within its own bounds; this one expires at ${creator.expiresAt}`, {
      field: 'key.expiresAt',
      bound: creator.expiresAt,
    });
  }
}
