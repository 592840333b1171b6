/**
 * CronJob schedules as upstream reads them (robfig/cron v3 ParseStandard):
 * exactly five fields (minute hour day-of-month month day-of-week), or one of
 * the descriptors @yearly/@annually, @monthly, @weekly, @daily/@midnight,
 * @hourly, or `@every <duration>`. Times are computed by cron-parser in the
 * given IANA time zone (UTC when none, as a controller manager in UTC would).
 */
import { lazyRequire } from '../util/lazy-require.js';

const cronParser = lazyRequire<typeof import('cron-parser')>('cron-parser');

const descriptors: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

export interface Schedule {
  /** The first activation strictly after `afterMs` (epoch milliseconds). */
  next(afterMs: number): number;
}

export type ParsedSchedule = { ok: true; schedule: Schedule } | { ok: false; error: string };

const units: Record<string, number> = { h: 3600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, 'µs': 0.001, ns: 0.000001 };

/** Go's time.ParseDuration for the `@every` descriptor; undefined when invalid. */
function goDurationMs(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) { total += Number(m[1]) * units[m[2]]; matched = re.lastIndex; }
  return matched === text.length && text.length > 0 ? total : undefined;
}

/** robfig's Every: activations on whole-second boundaries, at least one second apart. */
function everySchedule(ms: number): Schedule {
  const step = Math.max(1000, Math.floor(ms / 1000) * 1000);
  return { next: (after) => Math.floor(after / 1000) * 1000 + step };
}

function cronSchedule(expr: string, tz: string | undefined): Schedule {
  return {
    next(after) {
      const it = cronParser().CronExpressionParser.parse(expr, { currentDate: new Date(after), tz: tz ?? 'UTC' });
      return it.next().getTime();
    },
  };
}

/** cron-parser's refusal of a day of month that never occurs (which robfig accepts). */
const unreachableDayOfMonth = 'Invalid explicit day of month definition';

/** A schedule with no activation (robfig's Next returns the zero time). */
const neverSchedule: Schedule = { next: () => Number.POSITIVE_INFINITY };

/** Parses a schedule; errors read like robfig/cron's where k8ts can tell them apart. */
export function parseSchedule(text: string, timeZone?: string): ParsedSchedule {
  const spec = text.trim();
  if (spec.startsWith('@every ')) {
    const ms = goDurationMs(spec.slice('@every '.length).trim());
    return ms === undefined ? { ok: false, error: `failed to parse duration ${spec}: time: invalid duration "${spec.slice(7)}"` } : { ok: true, schedule: everySchedule(ms) };
  }
  if (spec.startsWith('@')) {
    const expr = descriptors[spec];
    return expr ? { ok: true, schedule: cronSchedule(expr, timeZone) } : { ok: false, error: `unrecognized descriptor: ${spec}` };
  }
  const fields = spec.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) return { ok: false, error: `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]` };
  try {
    cronParser().CronExpressionParser.parse(fields.join(' '), { tz: timeZone ?? 'UTC' });
  } catch (e) {
    const message = (e as Error).message;
    // robfig/cron checks each field's range only: `59 23 31 2 *` parses and
    // simply never fires (its Next gives up after five years). cron-parser
    // refuses a day of month no listed month has; upstream accepts it.
    if (message === unreachableDayOfMonth) return { ok: true, schedule: neverSchedule };
    return { ok: false, error: message };
  }
  return { ok: true, schedule: cronSchedule(fields.join(' '), timeZone) };
}

/** Whether the runtime knows an IANA time zone name (Go's time.LoadLocation). */
export function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
