/**
 * Dates from front matter, read strictly: a value that is not a real calendar date and time is
 * an error, never silently moved to another day (`2026-02-30` is not March 2), and a value
 * without an offset is read in the configured time zone, never the machine's.
 *
 * Accepted: `YYYY-MM-DD`, and `YYYY-MM-DD[T ]HH:MM[:SS[.fff]]` optionally followed by `Z`,
 * `±HH:MM`, `±HHMM` or `±HH` (with or without a space before it, as Jekyll writes them).
 * A `Date` (what a YAML parser may hand over) is taken as the instant it is.
 */
export type ParsedDate = { iso: string } | { error: string };

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export const DATE_FORMATS_HINT =
  'use ISO 8601, e.g. 2026-11-20, 2026-11-20T09:30:00 or 2026-11-20T09:30:00+01:00';

export function parseDate(value: unknown, timeZone: string): ParsedDate {
  if (value instanceof Date) {
    return Number.isNaN(value.getTime())
      ? { error: `is not a date: ${DATE_FORMATS_HINT}` }
      : { iso: value.toISOString() };
  }
  if (typeof value !== 'string')
    return { error: `must be a date, got ${describe(value)}: ${DATE_FORMATS_HINT}` };
  const text = value.trim();
  const m = DATE_TIME.exec(text);
  if (!m)
    return { error: `\`${text}\` is not a date cms-sync can read without guessing: ${DATE_FORMATS_HINT}` };
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12) return { error: `\`${text}\` has no month ${month}: ${DATE_FORMATS_HINT}` };
  if (day < 1 || day > daysInMonth(year, month)) {
    return {
      error:
        `\`${text}\` is not a day of the calendar (${monthName(month)} ${year} has ${daysInMonth(year, month)} ` +
        `days)`,
    };
  }
  if (hour > 23 || minute > 59 || second > 59)
    return { error: `\`${text}\` is not a time of day: hours 00-23, minutes and seconds 00-59` };
  const ms = Math.floor(Number(`0.${frac || '0'}`) * 1000);
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (zone !== undefined) {
    const offset = zoneOffsetMinutes(zone);
    if (offset === undefined) return { error: `\`${text}\` has an offset out of range (at most ±14:00)` };
    return { iso: new Date(wall - offset * 60_000).toISOString() };
  }
  return { iso: new Date(wall - offsetInZone(wall, timeZone) * 60_000).toISOString() };
}

/** Whether `timeZone` is an IANA name this Node knows (`UTC`, `Europe/Madrid`, ...). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

function zoneOffsetMinutes(zone: string): number | undefined {
  if (zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 14 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

/**
 * The offset of `timeZone` from UTC, in minutes, for the local wall-clock reading `wall` (a UTC
 * timestamp standing for local fields). Around a change of offset the local time may not exist
 * (a gap) or exist twice (an overlap): both resolve as Temporal's "compatible" disambiguation
 * does, with the offset in force before the change (a gap's time moves forward; an overlap's
 * takes the earlier instant).
 */
function offsetInZone(wall: number, timeZone: string): number {
  const DAY = 86_400_000;
  const before = offsetAt(wall - DAY, timeZone);
  const after = offsetAt(wall + DAY, timeZone);
  if (before === after) return before;
  const fits = (offset: number) => offsetAt(wall - offset * 60_000, timeZone) === offset;
  if (fits(before)) return before;
  if (fits(after)) return after;
  return before;
}

/**
 * The wall-clock reading of `date` in `timeZone`, as a Date whose UTC fields are the local ones
 * (its year, month, day and hour as the site's calendar shows them).
 */
export function wallClock(date: Date, timeZone: string): Date {
  return new Date(date.getTime() + offsetAt(date.getTime(), timeZone) * 60_000);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The offset of `timeZone` from UTC at the instant `utc`, in minutes. */
function offsetAt(utc: number, timeZone: string): number {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(utc)).map((p) => [p.type, p.value]));
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return Math.round((asUtc - Math.floor(utc / 1000) * 1000) / 60_000);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function monthName(month: number): string {
  return new Date(Date.UTC(2000, month - 1, 1)).toLocaleString('en', { month: 'long', timeZone: 'UTC' });
}

function describe(value: unknown): string {
  return value === null ? 'null' : `a ${typeof value} (${JSON.stringify(value)})`;
}

/** A leading `YYYY-MM-DD-` in a file name (Jekyll's posts): the date, and the name without it. */
export function dateFromFileName(name: string): { date: string; rest: string } | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})-(.+)$/.exec(name);
  return m && m[1] && m[2] ? { date: m[1], rest: m[2] } : undefined;
}
