// Change windows (agentform.yaml, per environment): spans of time in which apply, promote and
// rollback refuse to write, like Argo CD's deny sync windows. Two kinds: a fixed date range, and a
// weekly span in an IANA time zone, read on the wall clock of that zone (so a window from Friday
// 16:00 to Monday 08:00 Europe/Berlin keeps its local hours across daylight-saving changes).
// Pure: "now" is always given, and time zones come from Intl (no I/O, no dependency).
import { formatLocation, type SourceLocation } from '../errors.js';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

interface WindowBase {
  name: string;
  reason: string;
  /** Where the window is declared (agentform.yaml). */
  location?: SourceLocation;
}

/** From `from` (included) to `until` (excluded), ISO 8601 instants with an offset. */
export interface DateRangeWindow extends WindowBase {
  kind: 'dates';
  from: string;
  until: string;
}

/**
 * Weekly, on the wall clock of `timeZone`. With `days`: `start` and `end` are times (HH:MM), and the
 * window opens on each of those days at `start` until the next `end` (the next day when `end` is
 * not after `start`). Without: `start` and `end` name a day and a time (`friday 16:00`), one span
 * that may cross the week's end.
 */
export interface WeeklyWindow extends WindowBase {
  kind: 'weekly';
  days?: Weekday[];
  start: string;
  end: string;
  timeZone: string;
}

export type ChangeWindow = DateRangeWindow | WeeklyWindow;

/** A window open at the instant asked about, and when it closes. */
export interface OpenWindow {
  window: ChangeWindow;
  endsAt: Date;
}

const MINUTES_PER_DAY = 24 * 60;
const MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY;
const MS_PER_MINUTE = 60_000;

/** `16:00` or `friday 16:00`: the day (0 = Monday) when named, and minutes since midnight. */
export interface WeeklyTime {
  day?: number;
  minutes: number;
}

const WEEKLY_TIME = /^(?:([a-z]+) +)?([01]\d|2[0-3]):([0-5]\d)$/;

export function parseWeeklyTime(text: string): WeeklyTime | undefined {
  const match = WEEKLY_TIME.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  if (match[1] === undefined) return { minutes };
  const day = (WEEKDAYS as readonly string[]).indexOf(match[1]);
  return day < 0 ? undefined : { day, minutes };
}

/** An ISO 8601 instant with a date, a time and an offset (`Z` or `+01:00`): a moment, not a wall time. */
export const INSTANT_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

export function parseInstant(text: string): Date | undefined {
  if (!INSTANT_SHAPE.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      weekday: 'long',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether Intl knows `timeZone` (an IANA name such as Europe/Berlin, or UTC). */
export function isTimeZone(timeZone: string): boolean {
  if (timeZone.trim() === '') return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock of `timeZone` at `ms`: the day of the week (0 = Monday), and the date and time as if UTC. */
function wallClock(ms: number, timeZone: string): { weekday: number; asUtc: number } {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(ms))) parts[part.type] = part.value;
  const weekday = (WEEKDAYS as readonly string[]).indexOf((parts.weekday ?? '').toLowerCase());
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return { weekday, asUtc: asUtc + (ms % 1000) };
}

/**
 * The first instant at which the wall clock of `timeZone` shows `wallAsUtc` (a date and time read
 * as if UTC). A wall time skipped when the clocks go forward is reached when they jump past it.
 */
function instantOfWallTime(wallAsUtc: number, timeZone: string): number {
  const day = MINUTES_PER_DAY * MS_PER_MINUTE;
  // The offsets on either side of any change of offset near that wall time.
  const offsets = [...new Set([wallAsUtc - day, wallAsUtc + day].map((ms) => wallClock(ms, timeZone).asUtc - ms))].sort((a, b) => b - a);
  const candidates = offsets.map((offset) => wallAsUtc - offset);
  const exact = candidates.filter((ms) => wallClock(ms, timeZone).asUtc === wallAsUtc);
  if (exact.length > 0) return Math.min(...exact);
  // In the gap: search for the jump between the two candidates.
  let low = Math.min(...candidates);
  let high = Math.max(...candidates);
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000;
    if (wallClock(middle, timeZone).asUtc >= wallAsUtc) high = middle;
    else low = middle;
  }
  return high;
}

/** The spans of a weekly window in minutes of the week (Monday 00:00 = 0); `end` may pass the week's end. */
export function weeklySpans(window: Pick<WeeklyWindow, 'days' | 'start' | 'end'>): Array<{ start: number; end: number }> {
  const start = parseWeeklyTime(window.start);
  const end = parseWeeklyTime(window.end);
  if (!start || !end) return [];
  if (window.days && window.days.length > 0) {
    const length = (end.minutes - start.minutes + MINUTES_PER_DAY) % MINUTES_PER_DAY;
    if (length === 0) return [];
    return window.days.map((day) => {
      const opens = WEEKDAYS.indexOf(day) * MINUTES_PER_DAY + start.minutes;
      return { start: opens, end: opens + length };
    });
  }
  if (start.day === undefined || end.day === undefined) return [];
  const opens = start.day * MINUTES_PER_DAY + start.minutes;
  const length = (end.day * MINUTES_PER_DAY + end.minutes - opens + MINUTES_PER_WEEK) % MINUTES_PER_WEEK;
  return length === 0 ? [] : [{ start: opens, end: opens + length }];
}

function weeklyEnd(window: WeeklyWindow, now: Date): Date | undefined {
  const wall = wallClock(now.getTime(), window.timeZone);
  const msOfDay = wall.asUtc % (MINUTES_PER_DAY * MS_PER_MINUTE);
  const minuteOfWeek = wall.weekday * MINUTES_PER_DAY + msOfDay / MS_PER_MINUTE;
  let latest: number | undefined;
  for (const span of weeklySpans(window)) {
    // A span that crosses the week's end also holds now one week on.
    for (const at of [minuteOfWeek, minuteOfWeek + MINUTES_PER_WEEK]) {
      if (at < span.start || at >= span.end) continue;
      const endWall = wall.asUtc + (span.end - at) * MS_PER_MINUTE;
      const ends = instantOfWallTime(endWall, window.timeZone);
      if (latest === undefined || ends > latest) latest = ends;
    }
  }
  return latest === undefined ? undefined : new Date(latest);
}

/** Whether `window` is open at `now`, and when it closes. */
export function openAt(window: ChangeWindow, now: Date): OpenWindow | undefined {
  if (window.kind === 'dates') {
    const from = parseInstant(window.from);
    const until = parseInstant(window.until);
    if (!from || !until) return undefined;
    return now >= from && now < until ? { window, endsAt: until } : undefined;
  }
  if (!isTimeZone(window.timeZone)) return undefined;
  const endsAt = weeklyEnd(window, now);
  return endsAt ? { window, endsAt } : undefined;
}

/** The windows open at `now`, in the order declared. */
export function openWindows(windows: readonly ChangeWindow[], now: Date): OpenWindow[] {
  return windows.flatMap((window) => {
    const open = openAt(window, now);
    return open ? [open] : [];
  });
}

/** Who let a change through a window, why, and when (`--break-glass`). */
export interface BreakGlass {
  actor: string;
  reason: string;
  at: string;
  /** The windows it went through, each with when it ends. */
  windows: Array<{ name: string; reason: string; endsAt: string }>;
}

/** What the windows say of a write at `now`: go, refused, or through with break-glass (recorded). */
export type WindowVerdict =
  | { outcome: 'outside'; unusedBreakGlass: boolean }
  | { outcome: 'refused'; open: OpenWindow[] }
  | { outcome: 'break-glass'; open: OpenWindow[]; record: BreakGlass };

export function judgeWindows(windows: readonly ChangeWindow[], now: Date, breakGlass?: { reason: string; actor: string }): WindowVerdict {
  const open = openWindows(windows, now);
  if (open.length === 0) return { outcome: 'outside', unusedBreakGlass: breakGlass !== undefined };
  if (!breakGlass) return { outcome: 'refused', open };
  return {
    outcome: 'break-glass',
    open,
    record: {
      actor: breakGlass.actor,
      reason: breakGlass.reason,
      at: now.toISOString(),
      windows: open.map(({ window, endsAt }) => ({ name: window.name, reason: window.reason, endsAt: endsAt.toISOString() })),
    },
  };
}

/** When a window closes, on its own clock: `2026-12-21T08:00+01:00 (Europe/Berlin)`, or the instant as written. */
export function describeEnd(open: OpenWindow): string {
  const { window, endsAt } = open;
  if (window.kind === 'dates') return window.until;
  const wall = new Date(wallClock(endsAt.getTime(), window.timeZone).asUtc);
  const offsetMinutes = Math.round((wall.getTime() - endsAt.getTime()) / MS_PER_MINUTE);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${wall.toISOString().slice(0, 16)}${offset} (${window.timeZone})`;
}

/** How an open window is named in outputs: `"year-end" (holiday freeze, agentform.yaml:9:9) until 2027-01-04T08:00:00+01:00`. */
export function describeOpenWindow(open: OpenWindow): string {
  const where = open.window.location ? `, ${formatLocation(open.window.location)}` : '';
  return `"${open.window.name}" (${open.window.reason}${where}) until ${describeEnd(open)}`;
}
