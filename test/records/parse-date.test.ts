import { describe, expect, it } from 'vitest';
import { dateFromFileName, isTimeZone, parseDate } from '../../src/records/parse-date.js';

const iso = (value: unknown, zone = 'UTC') => {
  const parsed = parseDate(value, zone);
  return 'iso' in parsed ? parsed.iso : `error: ${parsed.error}`;
};

describe('parseDate', () => {
  it('reads ISO 8601 dates and date-times, with or without an offset', () => {
    expect(iso('2026-11-20')).toBe('2026-11-20T00:00:00.000Z');
    expect(iso('2026-11-20T09:30')).toBe('2026-11-20T09:30:00.000Z');
    expect(iso('2026-11-20T09:30:15.25Z')).toBe('2026-11-20T09:30:15.250Z');
    expect(iso('2026-11-20T09:30:00+01:00')).toBe('2026-11-20T08:30:00.000Z');
    expect(iso('2026-11-20 09:30:00 -0500')).toBe('2026-11-20T14:30:00.000Z');
    expect(iso('2026-11-20T09:30:00+05')).toBe('2026-11-20T04:30:00.000Z');
    expect(iso(new Date('2026-01-02T03:04:05Z'))).toBe('2026-01-02T03:04:05.000Z');
  });

  it('reads a value without an offset in the configured zone, never the machine one', () => {
    expect(iso('2026-11-20', 'Europe/Madrid')).toBe('2026-11-19T23:00:00.000Z');
    expect(iso('2026-07-20T12:00', 'Europe/Madrid')).toBe('2026-07-20T10:00:00.000Z');
    expect(iso('2026-07-20T12:00', 'America/New_York')).toBe('2026-07-20T16:00:00.000Z');
    expect(iso('2026-07-20T12:00:00Z', 'America/New_York')).toBe('2026-07-20T12:00:00.000Z');
  });

  it('resolves a time in a DST gap forward and one in an overlap to the earlier instant', () => {
    // Europe/Madrid: 2026-03-29 02:00 -> 03:00 (gap); 2026-10-25 03:00 -> 02:00 (overlap).
    expect(iso('2026-03-29T02:30', 'Europe/Madrid')).toBe('2026-03-29T01:30:00.000Z');
    expect(iso('2026-10-25T02:30', 'Europe/Madrid')).toBe('2026-10-25T00:30:00.000Z');
  });

  it('refuses impossible and ambiguous dates instead of moving them', () => {
    expect(iso('2026-02-30')).toMatch(
      /error: `2026-02-30` is not a day of the calendar \(February 2026 has 28 days\)/,
    );
    expect(iso('2028-02-29')).toBe('2028-02-29T00:00:00.000Z');
    expect(iso('2026-13-45')).toMatch(/error: `2026-13-45` has no month 13/);
    expect(iso('2026-11-20T24:00')).toMatch(/is not a time of day/);
    for (const vague of ['March 5', '12/03/2026', '5 March 2026', '2026', 'yesterday', '']) {
      expect(iso(vague)).toMatch(/is not a date cms-sync can read without guessing/);
    }
    expect(iso(20261120)).toMatch(/must be a date, got a number/);
    expect(iso('2026-11-20T09:30+15:00')).toMatch(/offset out of range/);
  });

  it('knows IANA zone names', () => {
    expect(isTimeZone('Europe/Madrid')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});

describe('dateFromFileName', () => {
  it('takes a leading YYYY-MM-DD- as the date and the rest as the name', () => {
    expect(dateFromFileName('2024-05-01-hello-world')).toEqual({ date: '2024-05-01', rest: 'hello-world' });
    expect(dateFromFileName('hello-world')).toBeUndefined();
    expect(dateFromFileName('2024-05-01')).toBeUndefined();
  });
});
