// usage.keys: recorded usage rows summed per key of the caller's environment over [from, to).
import { type KeyUsageRow, USAGE_FIELDS, type UsageTotals } from '../../model/api.js';
import { environmentOf } from '../context.js';
import { invalid } from '../service-error.js';
import { parseJson } from '../util.js';
import { keysOf } from './apiKeys.js';
import type { GroupHandlers } from './types.js';

export function zeroTotals(): UsageTotals {
  return Object.fromEntries(USAGE_FIELDS.map((field) => [field, 0])) as unknown as UsageTotals;
}

export const usage: GroupHandlers<'usage'> = {
  'usage.keys': (ctx, body) => {
    const from = Date.parse(body.period.from);
    const to = Date.parse(body.period.to);
    if (!(from < to)) throw invalid('period', 'from must be earlier than to');
    const environmentId = environmentOf(ctx);
    const rows = ctx.db
      .prepare('SELECT key_id, totals FROM usage_rows WHERE environment_id = ? AND at >= ? AND at < ?')
      .all(environmentId, new Date(from).toISOString(), new Date(to).toISOString()) as Array<{ key_id: string; totals: string }>;
    const byKey = new Map<string, UsageTotals>();
    for (const row of rows) {
      const sum = byKey.get(row.key_id) ?? zeroTotals();
      const add = parseJson<Partial<UsageTotals>>(row.totals, {});
      for (const field of USAGE_FIELDS) sum[field] += Number(add[field] ?? 0);
      byKey.set(row.key_id, sum);
    }
    return keysOf(ctx.db, environmentId).map(
      (key): KeyUsageRow => ({
        keyId: key.id,
        name: key.name,
        prefix: key.prefix,
        spend: parseJson(key.spend, {}),
        revoked: key.revoked_at !== null,
        totals: byKey.get(key.id) ?? zeroTotals(),
      }),
    );
  },
};
