// Change windows at an instant: date ranges, weekly spans across midnight and the week's end, and
// the daylight-saving changes of Europe/Berlin (2026: clocks forward on 29 March at 02:00 CET,
// back on 25 October at 03:00 CEST), read on each zone's wall clock.
import { describe, expect, it } from 'vitest';
import { type ChangeWindow, describeEnd, judgeWindows, openAt, parseWeeklyTime, weeklySpans } from '../../src/engine/change-windows.js';

const weekend: ChangeWindow = {
  kind: 'weekly',
  name: 'weekend',
  reason: 'nobody on call',
  start: 'friday 16:00',
  end: 'monday 08:00',
  timeZone: 'Europe/Berlin',
};
const nightly: ChangeWindow = {
  kind: 'weekly',
  name: 'nightly',
  reason: 'batch jobs',
  days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
  start: '22:00',
  end: '06:00',
  timeZone: 'Europe/Berlin',
};
const yearEnd: ChangeWindow = {
  kind: 'dates',
  name: 'year-end',
  reason: 'holiday freeze',
  from: '2026-12-20T00:00:00+01:00',
  until: '2027-01-04T08:00:00+01:00',
};
const earlyMorning = (start: string, end: string, timeZone = 'Europe/Berlin'): ChangeWindow => ({
  kind: 'weekly',
  name: 'early',
  reason: 'r',
  days: ['sunday'],
  start,
  end,
  timeZone,
});

describe('openAt', () => {
  // [case, window, now, ends at (UTC) or undefined when closed]
  const cases: Array<[string, ChangeWindow, string, string | undefined]> = [
    ['date range: before', yearEnd, '2026-12-19T22:59:59Z', undefined],
    ['date range: at from (included)', yearEnd, '2026-12-19T23:00:00Z', '2027-01-04T07:00:00.000Z'],
    ['date range: inside, other offset', yearEnd, '2027-01-01T12:00:00+09:00', '2027-01-04T07:00:00.000Z'],
    ['date range: at until (excluded)', yearEnd, '2027-01-04T07:00:00Z', undefined],
    ['weekly: Friday 15:59 Berlin', weekend, '2026-11-27T14:59:00Z', undefined],
    ['weekly: Friday 16:00 Berlin', weekend, '2026-11-27T15:00:00Z', '2026-11-30T07:00:00.000Z'],
    ['weekly: Sunday, across the week end', weekend, '2026-11-29T12:00:00Z', '2026-11-30T07:00:00.000Z'],
    ['weekly: Monday 07:59 Berlin', weekend, '2026-11-30T06:59:00Z', '2026-11-30T07:00:00.000Z'],
    ['weekly: Monday 08:00 Berlin', weekend, '2026-11-30T07:00:00Z', undefined],
    ['weekly: Wednesday', weekend, '2026-11-25T12:00:00Z', undefined],
    ['days, across midnight: Tuesday 23:00', nightly, '2026-11-24T22:00:00Z', '2026-11-25T05:00:00.000Z'],
    ['days, across midnight: Wednesday 05:59', nightly, '2026-11-25T04:59:00Z', '2026-11-25T05:00:00.000Z'],
    ['days, across midnight: Saturday 05:00 (opened Friday)', nightly, '2026-11-28T04:00:00Z', '2026-11-28T05:00:00.000Z'],
    ['days, across midnight: Monday 05:00 (Sunday not listed)', nightly, '2026-11-30T04:00:00Z', undefined],
    ['days: Wednesday 12:00', nightly, '2026-11-25T11:00:00Z', undefined],
    // Spring forward: Sunday 29 March 2026, 02:00 CET → 03:00 CEST.
    ['DST forward: weekend window ends Monday 08:00 CEST', weekend, '2026-03-28T12:00:00Z', '2026-03-30T06:00:00.000Z'],
    ['DST forward: opened Friday 16:00 CET', weekend, '2026-03-27T15:00:00Z', '2026-03-30T06:00:00.000Z'],
    ['DST forward: 01:00-04:00 at 03:30 CEST', earlyMorning('01:00', '04:00'), '2026-03-29T01:30:00Z', '2026-03-29T02:00:00.000Z'],
    ['DST forward: end in the skipped hour ends at the jump', earlyMorning('00:00', '02:30'), '2026-03-29T00:30:00Z', '2026-03-29T01:00:00.000Z'],
    ['DST forward: after the jump, past a skipped end', earlyMorning('00:00', '02:30'), '2026-03-29T01:00:00Z', undefined],
    // Fall back: Sunday 25 October 2026, 03:00 CEST → 02:00 CET.
    ['DST back: weekend window ends Monday 08:00 CET', weekend, '2026-10-24T12:00:00Z', '2026-10-26T07:00:00.000Z'],
    ['DST back: 01:00-04:00 lasts four hours', earlyMorning('01:00', '04:00'), '2026-10-24T23:00:00Z', '2026-10-25T03:00:00.000Z'],
    ['DST back: 01:00-04:00 at 02:30 CET', earlyMorning('01:00', '04:00'), '2026-10-25T01:30:00Z', '2026-10-25T03:00:00.000Z'],
    ['DST back: an end in the repeated hour is its first pass', earlyMorning('01:00', '02:30'), '2026-10-24T23:30:00Z', '2026-10-25T00:30:00.000Z'],
    ['UTC', earlyMorning('01:00', '04:00', 'UTC'), '2026-11-29T01:00:00Z', '2026-11-29T04:00:00.000Z'],
    ['America/New_York', earlyMorning('01:00', '04:00', 'America/New_York'), '2026-11-29T07:00:00Z', '2026-11-29T09:00:00.000Z'],
    ['Asia/Kolkata (half-hour offset)', earlyMorning('01:00', '04:00', 'Asia/Kolkata'), '2026-11-28T19:30:00Z', '2026-11-28T22:30:00.000Z'],
    ['Asia/Kolkata just before', earlyMorning('01:00', '04:00', 'Asia/Kolkata'), '2026-11-28T19:29:00Z', undefined],
  ];
  it.each(cases)('%s', (_name, window, now, endsAt) => {
    expect(openAt(window, new Date(now))?.endsAt.toISOString()).toBe(endsAt);
  });
});

describe('weekly times and spans', () => {
  it.each<[string, ReturnType<typeof parseWeeklyTime>]>([
    ['16:00', { minutes: 960 }],
    ['friday 16:00', { day: 4, minutes: 960 }],
    ['Sunday 23:59', { day: 6, minutes: 1439 }],
    ['24:00', undefined],
    ['fri 16:00', undefined],
    ['16h', undefined],
  ])('%s', (text, parsed) => {
    expect(parseWeeklyTime(text)).toEqual(parsed);
  });

  it('wraps a span that crosses the week end past its length', () => {
    expect(weeklySpans({ start: 'sunday 22:00', end: 'monday 02:00' })).toEqual([{ start: 6 * 1440 + 1320, end: 7 * 1440 + 120 }]);
  });

  it('has no span when it ends when it starts', () => {
    expect(weeklySpans({ days: ['monday'], start: '10:00', end: '10:00' })).toEqual([]);
  });
});

describe('judgeWindows', () => {
  const inside = new Date('2026-12-24T10:00:00+01:00');
  const outside = new Date('2026-12-10T10:00:00+01:00');

  it('refuses inside a window', () => {
    expect(judgeWindows([yearEnd], inside)).toMatchObject({ outcome: 'refused', open: [{ window: { name: 'year-end' } }] });
  });

  it('records who broke the glass, why and when', () => {
    expect(judgeWindows([yearEnd], inside, { reason: 'incident 4711', actor: 'octocat' })).toMatchObject({
      outcome: 'break-glass',
      record: {
        actor: 'octocat',
        reason: 'incident 4711',
        at: '2026-12-24T09:00:00.000Z',
        windows: [{ name: 'year-end', reason: 'holiday freeze', endsAt: '2027-01-04T07:00:00.000Z' }],
      },
    });
  });

  it.each([
    [undefined, false],
    [{ reason: 'x', actor: 'y' }, true],
  ])('outside a window goes, noting an unused --break-glass (%j)', (breakGlass, unused) => {
    expect(judgeWindows([yearEnd, weekend], outside, breakGlass)).toEqual({ outcome: 'outside', unusedBreakGlass: unused });
  });
});

describe('describeEnd', () => {
  it('gives a weekly end on its own clock', () => {
    const open = openAt(weekend, new Date('2026-11-28T12:00:00Z'));
    expect(open && describeEnd(open)).toBe('2026-11-30T08:00+01:00 (Europe/Berlin)');
  });

  it('gives a date range end as written', () => {
    const open = openAt(yearEnd, new Date('2026-12-24T12:00:00Z'));
    expect(open && describeEnd(open)).toBe('2027-01-04T08:00:00+01:00');
  });
});
