// Pure parsing of the time values operations commands accept (`usage --from/--to`, `keys create
// --expires`). "now" is always injected, so every rule is testable without a clock.
// The API wants RFC 3339 (assumed, see src/api/operations.ts); we always send UTC `...Z` strings.
import { UserError } from '../../../errors.js';

export interface UsagePeriod {
  from: string;
  to: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A guard against typos such as `3000000d`; ten years is more than any retention. */
const MAX_DAYS = 3660;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DAYS = /^(\d+)d$/;

const ACCEPTED = 'a date (2026-05-01), an RFC 3339 time (2026-05-01T08:00:00Z), a number of days (7d, 30d) or this-month';

/** Year, month, day exist on the calendar (Date.UTC would silently roll 2026-02-30 over to March). */
function calendarDate(year: number, month: number, day: number): number | undefined {
  const time = Date.UTC(year, month - 1, day);
  const date = new Date(time);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return time;
}

function parseDate(value: string): number | undefined {
  const match = DATE.exec(value);
  if (!match) return undefined;
  return calendarDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

function parseRfc3339(value: string): number | undefined {
  const match = RFC3339.exec(value);
  if (!match) return undefined;
  if (calendarDate(Number(match[1]), Number(match[2]), Number(match[3])) === undefined) return undefined;
  if (Number(match[4]) > 23 || Number(match[5]) > 59 || Number(match[6]) > 60) return undefined;
  const time = Date.parse(value.replace(' ', 'T'));
  return Number.isNaN(time) ? undefined : time;
}

function parseDays(value: string, flag: string): number | undefined {
  const match = DAYS.exec(value);
  if (!match) return undefined;
  const days = Number(match[1]);
  if (days < 1 || days > MAX_DAYS) throw new UserError(`${flag} ${value}: the number of days must be between 1 and ${MAX_DAYS}`);
  return days;
}

function startOfMonth(now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
}

function invalid(flag: string, value: string, accepted: string): UserError {
  return new UserError(`${flag} ${JSON.stringify(value)} is not a time: expected ${accepted}`, 'dates and days are in UTC');
}

/**
 * The start of a period: `7d` is 7×24 hours before now, `this-month` is the first of the current
 * month (UTC), a date is that day's 00:00 UTC.
 */
export function parsePeriodStart(value: string, now: Date, flag = '--from'): number {
  const text = value.trim();
  if (text === 'this-month') return startOfMonth(now);
  const days = parseDays(text, flag);
  if (days !== undefined) return now.getTime() - days * DAY_MS;
  const instant = parseDate(text) ?? parseRfc3339(text);
  if (instant === undefined) throw invalid(flag, value, ACCEPTED);
  return instant;
}

/**
 * The end of a period (exclusive): `now`, `7d` (7 days ago), a date (inclusive: the end of that
 * day, i.e. 00:00 UTC of the next), or an RFC 3339 time.
 */
export function parsePeriodEnd(value: string, now: Date, flag = '--to'): number {
  const text = value.trim();
  if (text === 'now') return now.getTime();
  if (text === 'this-month') throw new UserError(`${flag} this-month: this-month is a --from value (the period then runs to now)`);
  const days = parseDays(text, flag);
  if (days !== undefined) return now.getTime() - days * DAY_MS;
  const date = parseDate(text);
  if (date !== undefined) return date + DAY_MS;
  const instant = parseRfc3339(text);
  if (instant === undefined) throw invalid(flag, value, 'now, a date (2026-05-31, the whole day counts), an RFC 3339 time or a number of days ago (7d)');
  return instant;
}

/** `--from` defaults to this-month, `--to` to now. The period must not be empty. */
export function parseUsagePeriod(options: { from?: string; to?: string }, now: Date): UsagePeriod {
  const from = parsePeriodStart(options.from ?? 'this-month', now);
  const to = options.to === undefined ? now.getTime() : parsePeriodEnd(options.to, now);
  if (from >= to) {
    throw new UserError(
      `the period is empty: --from ${options.from ?? 'this-month'} (${new Date(from).toISOString()}) is not before --to ${options.to ?? 'now'} (${new Date(to).toISOString()})`,
    );
  }
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

/** Days a period covers, rounded up to whole days (a daily cap applies once per started day). */
export function periodDays(period: UsagePeriod): number {
  return Math.max(1, Math.ceil((Date.parse(period.to) - Date.parse(period.from)) / DAY_MS));
}

/** `keys create --expires`: `30d` from now, a date (its 00:00 UTC) or an RFC 3339 time, in the future. */
export function parseExpiry(value: string, now: Date, flag = '--expires'): string {
  const text = value.trim();
  const days = parseDays(text, flag);
  const instant = days !== undefined ? now.getTime() + days * DAY_MS : (parseDate(text) ?? parseRfc3339(text));
  if (instant === undefined) throw invalid(flag, value, 'a number of days from now (30d), a date (2026-12-31) or an RFC 3339 time');
  if (instant <= now.getTime()) throw new UserError(`${flag} ${value} is in the past (${new Date(instant).toISOString()})`);
  return new Date(instant).toISOString();
}
