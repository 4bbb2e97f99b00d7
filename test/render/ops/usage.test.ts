import { describe, expect, it } from 'vitest';
import type { KeyUsageRow } from '../../../src/model/api.js';
import { computeUsage, renderUsageCsv, renderUsageTable, usageJson } from '../../../src/render/ops/usage.js';
import { paletteFor } from '../../../src/render/palette.js';

const zero = {
  activeSeconds: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheReportingCalls: 0,
  serverToolRequests: 0,
  turns: 0,
  modelCalls: 0,
  toolCalls: 0,
  costUsd: 0,
  unpricedCalls: 0,
};
const rows: KeyUsageRow[] = [
  {
    keyId: 'k1',
    name: 'ci',
    prefix: 'svc_dev_a',
    spend: { tokensPerMonth: 10_000, agentMinutesPerMonth: 100, dailyUsd: 2 },
    totals: { ...zero, inputTokens: 6_000, outputTokens: 2_500, activeSeconds: 1_800, turns: 12, modelCalls: 30, toolCalls: 7, costUsd: 3.5 },
  },
  { keyId: 'k2', name: 'bot, "old"', prefix: 'svc_dev_b', revoked: true, totals: { ...zero, inputTokens: 10, turns: 1, modelCalls: 1 } },
];
const period = { from: '2026-05-01T00:00:00.000Z', to: '2026-05-03T00:00:00.000Z' };

describe('computeUsage', () => {
  it('divides each total by its cap, the daily dollar cap times the days of the period', () => {
    const [ci, bot] = computeUsage(rows, 2);
    expect(ci?.tokens).toBe(8_500);
    expect(ci?.shares).toEqual({ tokens: 0.85, agentMinutes: 0.3, dailyUsd: 0.875 });
    expect(ci?.nearCap).toBe(true);
    expect(bot?.shares).toEqual({ tokens: null, agentMinutes: null, dailyUsd: null });
    expect(bot?.nearCap).toBe(false);
  });

  it.each([
    [0.79, false],
    [0.8, true],
    [1.2, true],
  ])('a share of %d is highlighted: %s', (used, highlighted) => {
    const [row] = computeUsage([{ keyId: 'k', name: 'k', spend: { tokensPerMonth: 100 }, totals: { ...zero, inputTokens: used * 100 } }], 1);
    expect(row?.nearCap).toBe(highlighted);
  });

  it('a zero cap is treated as no cap rather than an infinite share', () => {
    const [row] = computeUsage([{ keyId: 'k', name: 'k', spend: { tokensPerMonth: 0 }, totals: { ...zero, inputTokens: 5 } }], 1);
    expect(row?.shares.tokens).toBeNull();
  });
});

describe('usage outputs', () => {
  const usage = computeUsage(rows, 2);

  it('table: one row per key, keys near a cap marked even without colour', () => {
    expect(renderUsageTable(usage, period)).toBe(
      [
        'Usage from 2026-05-01T00:00:00.000Z to 2026-05-03T00:00:00.000Z',
        '',
        'KEY                   PREFIX     TOKENS  TURNS  MODEL CALLS  TOOL CALLS  MINUTES   COST  TOKEN CAP  MINUTE CAP  DAILY $ CAP',
        'ci                    svc_dev_a   8,500     12           30           7       30  $3.50       85%!         30%         88%!',
        'bot, "old" (revoked)  svc_dev_b      10      1            1           0        0  $0.00          -           -            -',
        '',
        '! 1 key is at or over 80 % of a spend cap.',
        'Caps: tokens and minutes per month, dollars per day over the period\'s days; "-" = no cap.',
      ].join('\n'),
    );
  });

  it('table: with colour the marked cells are coloured', () => {
    expect(renderUsageTable(usage, period, paletteFor(true))).toContain('\u001b[33m85%!\u001b[39m');
  });

  it('csv: a header, one line per key, RFC 4180 quoting, shares as fractions', () => {
    const lines = renderUsageCsv(usage).split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      'keyId,name,prefix,revoked,inputTokens,outputTokens,cacheReadTokens,cacheWriteTokens,turns,modelCalls,toolCalls,serverToolRequests,activeSeconds,costUsd,unpricedCalls,tokensPerMonth,agentMinutesPerMonth,dailyUsd,tokensShare,agentMinutesShare,dailyUsdShare,nearCap',
    );
    expect(lines[1]).toBe('k1,ci,svc_dev_a,false,6000,2500,0,0,12,30,7,0,1800,3.5,0,10000,100,2,0.85,0.3,0.875,true');
    expect(lines[2]).toBe('k2,"bot, ""old""",svc_dev_b,true,10,0,0,0,1,1,0,0,0,0,0,,,,,,,false');
  });

  it('json: the API rows plus shares', () => {
    const json = usageJson(usage, period) as { keys: Array<Record<string, unknown>> };
    expect(json.keys[0]).toMatchObject({ keyId: 'k1', totals: rows[0]?.totals, shares: { tokens: 0.85 }, nearCap: true });
  });
});
