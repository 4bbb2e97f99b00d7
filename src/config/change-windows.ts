// The change windows of agentform.yaml (`environments.<name>.changeWindows`), read from the root
// document as the schema checked it, and checked where the schema cannot: a date range or a weekly
// span (not both, not neither), a known time zone, an end that comes after the start, unique names.
// Evaluating them at an instant is the engine's (engine/change-windows.ts).
import { type ChangeWindow, INSTANT_SHAPE, isTimeZone, parseInstant, parseWeeklyTime, WEEKDAYS, type Weekday } from '../engine/change-windows.js';
import type { PathSegment, ProblemList } from './problems.js';
import type { ProjectRoot } from './project.js';
import { closest } from './suggest.js';
import type { LocatedDocument } from './yaml-source.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rawWindowsOf(root: LocatedDocument, environment: string): unknown[] {
  const value = isObject(root.value) ? root.value : {};
  const environments = isObject(value.environments) ? value.environments : {};
  const settings = environments[environment];
  return isObject(settings) && Array.isArray(settings.changeWindows) ? settings.changeWindows : [];
}

/** The well-formed windows of `environment`, each located (the checks below report the others). */
export function changeWindowsOf(root: Pick<ProjectRoot, 'root'>, environment: string): ChangeWindow[] {
  return rawWindowsOf(root.root, environment).flatMap((raw, index): ChangeWindow[] => {
    if (!isObject(raw) || typeof raw.name !== 'string' || typeof raw.reason !== 'string') return [];
    const location = root.root.locate(['environments', environment, 'changeWindows', index]);
    const base = { name: raw.name, reason: raw.reason, location };
    if (typeof raw.from === 'string' && typeof raw.until === 'string') return [{ kind: 'dates', ...base, from: raw.from, until: raw.until }];
    const weekly = raw.weekly;
    if (isObject(weekly) && typeof weekly.start === 'string' && typeof weekly.end === 'string' && typeof weekly.timeZone === 'string') {
      const days = Array.isArray(weekly.days) ? weekly.days.filter((day): day is Weekday => (WEEKDAYS as readonly unknown[]).includes(day)) : undefined;
      return [{ kind: 'weekly', ...base, ...(days ? { days } : {}), start: weekly.start, end: weekly.end, timeZone: weekly.timeZone }];
    }
    return [];
  });
}

/** Every environment's windows, checked; each problem located at the key at fault. */
export function checkChangeWindows(project: Pick<ProjectRoot, 'root' | 'environments'>, problems: ProblemList): void {
  for (const environment of Object.keys(project.environments)) {
    const names = new Set<string>();
    rawWindowsOf(project.root, environment).forEach((raw, index) => {
      if (!isObject(raw)) return;
      const at = (...path: PathSegment[]): [ReturnType<LocatedDocument['locate']>, PathSegment[]] => {
        const full = ['environments', environment, 'changeWindows', index, ...path];
        return [project.root.locate(full), full];
      };
      const error = (message: string, ...path: PathSegment[]) => problems.error(`change window ${label(raw, index)}: ${message}`, ...at(...path));
      if (typeof raw.name === 'string') {
        if (names.has(raw.name)) error(`another window of ${environment} has this name: names must be unique`, 'name');
        names.add(raw.name);
      }
      const dated = raw.from !== undefined || raw.until !== undefined;
      if (dated && raw.weekly !== undefined) error('has both from/until and weekly: a window is one or the other', 'weekly');
      else if (!dated && raw.weekly === undefined) error('needs from and until (dates), or weekly (days and times in a time zone)');
      else if (dated) checkDates(raw, error);
      else if (isObject(raw.weekly)) checkWeekly(raw.weekly, error);
    });
  }
}

function label(raw: Record<string, unknown>, index: number): string {
  return typeof raw.name === 'string' ? `"${raw.name}"` : `#${index + 1}`;
}

type Report = (message: string, ...path: PathSegment[]) => void;

function looksLikeInstant(value: unknown): boolean {
  return typeof value === 'string' && INSTANT_SHAPE.test(value);
}

function checkDates(raw: Record<string, unknown>, error: Report): void {
  const from = typeof raw.from === 'string' ? parseInstant(raw.from) : undefined;
  const until = typeof raw.until === 'string' ? parseInstant(raw.until) : undefined;
  if (raw.from === undefined) error('has until but no from', 'until');
  // A string of the wrong form is the schema's to report; one of the right form may name no day.
  else if (!from && looksLikeInstant(raw.from)) error(`from ${String(raw.from)} is not a date`, 'from');
  if (raw.until === undefined) error('has from but no until', 'from');
  else if (!until && looksLikeInstant(raw.until)) error(`until ${String(raw.until)} is not a date`, 'until');
  if (from && until && until <= from) error(`ends before it starts (until ${String(raw.until)} is not after from ${String(raw.from)})`, 'until');
}

function checkWeekly(weekly: Record<string, unknown>, error: Report): void {
  if (typeof weekly.timeZone === 'string' && !isTimeZone(weekly.timeZone)) {
    const suggestion = closest(weekly.timeZone, Intl.supportedValuesOf('timeZone'));
    error(
      `unknown time zone "${weekly.timeZone}"${suggestion ? `: did you mean "${suggestion}"?` : ''} (an IANA name such as Europe/Berlin, or UTC)`,
      'weekly',
      'timeZone',
    );
  }
  const hasDays = Array.isArray(weekly.days);
  const times: Record<'start' | 'end', ReturnType<typeof parseWeeklyTime>> = { start: undefined, end: undefined };
  for (const key of ['start', 'end'] as const) {
    const text = weekly[key];
    if (typeof text !== 'string') continue;
    const time = parseWeeklyTime(text);
    times[key] = time;
    // A time of the wrong form is the schema's to report.
    if (!time) continue;
    if (hasDays && time.day !== undefined) error(`${key} names a day, and days lists them: with days, ${key} is a time (16:00)`, 'weekly', key);
    else if (!hasDays && time.day === undefined) error(`${key} needs a day (friday 16:00), or list the days the window opens on in days`, 'weekly', key);
  }
  const { start, end } = times;
  if (start && end && start.day === end.day && start.minutes === end.minutes) {
    error('ends when it starts: the window would be empty, or the whole week (use a date range for a whole freeze)', 'weekly', 'end');
  }
}
