/**
 * When a CronJob should have run (upstream cronjob/utils.go mostRecentScheduleTime):
 * the schedule times after the last schedule (or the creation) — or after
 * now - startingDeadlineSeconds, when that is later — up to now. More than
 * 100 of them means the controller was down or the clock jumped: upstream
 * warns "too many missed start times" and still starts the latest one.
 */
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import type { Schedule } from '../../api/cron.js';

export const tooManyMissed = 100;
/** Enumeration cap: beyond it the count is estimated from the last interval. */
const maxSteps = 10_000;

export interface MostRecent {
  /** The latest schedule time not after now, if any. */
  scheduledTime?: number;
  /** How many schedule times passed since the earliest time (the latest included). */
  missed: number;
}

export function earliestTime(cj: CronJob, now: number): number {
  let earliest = Date.parse(cj.status?.lastScheduleTime ?? cj.metadata?.creationTimestamp ?? '') || now;
  const sds = cj.spec?.startingDeadlineSeconds;
  if (sds != null) earliest = Math.max(earliest, now - sds * 1000);
  return earliest;
}

export function mostRecentScheduleTime(cj: CronJob, schedule: Schedule, now: number): MostRecent {
  const earliest = earliestTime(cj, now);
  let t = schedule.next(earliest);
  if (t > now) return { missed: 0 };
  let latest = t;
  let missed = 0;
  for (; t <= now && missed < maxSteps; t = schedule.next(t)) { latest = t; missed++; }
  if (t <= now) {
    // A regular schedule: count the rest by its interval.
    const step = schedule.next(latest) - latest;
    const more = Math.floor((now - latest) / step);
    missed += more;
    latest += more * step;
  }
  return { scheduledTime: latest, missed };
}

/** Job names end in the scheduled time in minutes since the epoch (getTimeHashInMinutes). */
export const jobNameFor = (cj: CronJob, scheduledTime: number) => `${cj.metadata!.name}-${Math.floor(scheduledTime / 60_000)}`;

/** time.In(location).Format(time.RFC3339): the local time with its offset, "Z" for UTC. */
export function rfc3339In(ms: number, timeZone: string | undefined): string {
  const tz = timeZone ?? 'UTC';
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const local = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  const offsetMin = Math.round((local - Math.floor(ms / 1000) * 1000) / 60_000);
  const stamp = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  if (offsetMin === 0) return `${stamp}Z`;
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return `${stamp}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
