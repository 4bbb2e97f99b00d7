import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import { parseExpiry, parseUsagePeriod, periodDays } from '../../../src/cli/commands/usage/period.js';

// A fixed "now": the 17th of May 2026, mid-morning UTC.
const NOW = new Date('2026-05-17T09:30:00.000Z');

describe('parseUsagePeriod', () => {
  const valid: Array<[string, { from?: string; to?: string }, { from: string; to: string }]> = [
    ['defaults to this month so far', {}, { from: '2026-05-01T00:00:00.000Z', to: '2026-05-17T09:30:00.000Z' }],
    ['this-month', { from: 'this-month' }, { from: '2026-05-01T00:00:00.000Z', to: '2026-05-17T09:30:00.000Z' }],
    ['7d is seven 24-hour days back', { from: '7d' }, { from: '2026-05-10T09:30:00.000Z', to: '2026-05-17T09:30:00.000Z' }],
    ['30d', { from: '30d' }, { from: '2026-04-17T09:30:00.000Z', to: '2026-05-17T09:30:00.000Z' }],
    ['a date starts at 00:00 UTC', { from: '2026-05-02' }, { from: '2026-05-02T00:00:00.000Z', to: '2026-05-17T09:30:00.000Z' }],
    ['a --to date includes the whole day', { from: '2026-04-01', to: '2026-04-30' }, { from: '2026-04-01T00:00:00.000Z', to: '2026-05-01T00:00:00.000Z' }],
    ['RFC 3339 with Z', { from: '2026-05-03T10:15:00Z' }, { from: '2026-05-03T10:15:00.000Z', to: '2026-05-17T09:30:00.000Z' }],
    [
      'RFC 3339 with an offset is normalised to UTC',
      { from: '2026-05-03T10:15:00+02:00', to: '2026-05-04T00:00:00.250-01:00' },
      { from: '2026-05-03T08:15:00.000Z', to: '2026-05-04T01:00:00.250Z' },
    ],
    ['--to now', { from: '7d', to: 'now' }, { from: '2026-05-10T09:30:00.000Z', to: '2026-05-17T09:30:00.000Z' }],
    ['--to 7d is seven days ago', { from: '30d', to: '7d' }, { from: '2026-04-17T09:30:00.000Z', to: '2026-05-10T09:30:00.000Z' }],
    ['surrounding spaces are ignored', { from: ' 7d ' }, { from: '2026-05-10T09:30:00.000Z', to: '2026-05-17T09:30:00.000Z' }],
    ['a leap day exists in 2028', { from: '2028-02-29', to: '2028-03-01' }, { from: '2028-02-29T00:00:00.000Z', to: '2028-03-02T00:00:00.000Z' }],
  ];
  it.each(valid)('%s', (_name, options, expected) => {
    expect(parseUsagePeriod(options, NOW)).toEqual(expected);
  });

  const invalid: Array<[string, { from?: string; to?: string }, RegExp]> = [
    ['a word', { from: 'yesterday' }, /--from "yesterday" is not a time: expected a date \(2026-05-01\), an RFC 3339 time .*7d, 30d.*this-month/],
    ['a date that does not exist', { from: '2026-02-30' }, /--from "2026-02-30" is not a time/],
    ['no leap day in 2026', { from: '2026-02-29' }, /is not a time/],
    ['a time without a zone', { from: '2026-05-03T10:15:00' }, /is not a time/],
    ['an hour out of range', { from: '2026-05-03T25:00:00Z' }, /is not a time/],
    ['weeks are not a unit', { from: '2w' }, /"2w" is not a time/],
    ['zero days', { from: '0d' }, /--from 0d: the number of days must be between 1 and 3660/],
    ['too many days', { from: '99999d' }, /between 1 and 3660/],
    ['this-month is not an end', { to: 'this-month' }, /this-month is a --from value/],
    ['a bad --to', { from: '7d', to: 'later' }, /--to "later" is not a time: expected now/],
    [
      'an empty period',
      { from: '2026-05-10', to: '2026-05-09T00:00:00Z' },
      /the period is empty: --from 2026-05-10 \(2026-05-10T00:00:00.000Z\) is not before --to 2026-05-09T00:00:00Z/,
    ],
    ['a start in the future', { from: '2026-06-01' }, /the period is empty/],
  ];
  it.each(invalid)('refuses %s with a clear message', (_name, options, message) => {
    let error: unknown;
    try {
      parseUsagePeriod(options, NOW);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('periodDays', () => {
  it.each([
    [{ from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z' }, 1],
    [{ from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:01Z' }, 2],
    [{ from: '2026-05-01T00:00:00Z', to: '2026-05-01T00:10:00Z' }, 1],
    [{ from: '2026-04-17T09:30:00Z', to: '2026-05-17T09:30:00Z' }, 30],
  ])('%j covers %i started days', (period, days) => {
    expect(periodDays(period)).toBe(days);
  });
});

describe('parseExpiry', () => {
  it.each([
    ['30d', '2026-06-16T09:30:00.000Z'],
    ['2026-12-31', '2026-12-31T00:00:00.000Z'],
    ['2026-06-01T12:00:00+02:00', '2026-06-01T10:00:00.000Z'],
  ])('%s → %s', (value, expected) => {
    expect(parseExpiry(value, NOW)).toBe(expected);
  });

  it.each([
    ['2026-05-01', /--expires 2026-05-01 is in the past/],
    ['soon', /--expires "soon" is not a time: expected a number of days from now/],
  ])('refuses %s', (value, message) => {
    expect(() => parseExpiry(value, NOW)).toThrow(message);
  });
});
