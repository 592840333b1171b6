/**
 * CronJob schedules and planning in simulated time: parsing (five fields and
 * the descriptors), time zones, the most recent missed time and the
 * "too many missed" count, starting deadlines, concurrency policies, job
 * names and annotations, history limits, active and lastSuccessfulTime.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { parseSchedule } from '../../src/api/cron.js';
import { mostRecentScheduleTime, planCronJob, rfc3339In, scheduledTimestampAnnotation } from '../../src/controllers/cronjob/index.js';

const at = (s: string) => Date.parse(s);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function next(schedule: string, after: string, tz?: string): string {
  const p = parseSchedule(schedule, tz);
  if (!p.ok) throw new Error(p.error);
  return iso(p.schedule.next(at(after)));
}

describe('parseSchedule', () => {
  const cases: [string, string, string, string?][] = [
    ['*/5 * * * *', '2026-01-01T00:01:00Z', '2026-01-01T00:05:00Z'],
    ['0 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z'],
    ['@hourly', '2026-01-01T00:30:00Z', '2026-01-01T01:00:00Z'],
    ['@daily', '2026-01-01T00:30:00Z', '2026-01-02T00:00:00Z'],
    ['@midnight', '2026-01-01T00:30:00Z', '2026-01-02T00:00:00Z'],
    ['@weekly', '2026-01-01T00:30:00Z', '2026-01-04T00:00:00Z'],
    ['@monthly', '2026-01-01T00:30:00Z', '2026-02-01T00:00:00Z'],
    ['@yearly', '2026-01-01T00:30:00Z', '2027-01-01T00:00:00Z'],
    ['@annually', '2026-01-01T00:30:00Z', '2027-01-01T00:00:00Z'],
    ['@every 90s', '2026-01-01T00:00:00Z', '2026-01-01T00:01:30Z'],
    ['0 9 * * *', '2026-01-01T00:00:00Z', '2026-01-01T08:00:00Z', 'Europe/Berlin'],
  ];
  for (const [schedule, after, want, tz] of cases) {
    it(`${schedule}${tz ? ` in ${tz}` : ''} after ${after}`, () => assert.equal(next(schedule, after, tz), want));
  }

  const bad: [string, string][] = [
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['0 0 * * * *', 'expected exactly 5 fields, found 6: [0 0 * * * *]'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
  ];
  for (const [schedule, error] of bad) it(`"${schedule}" is refused`, () => assert.deepEqual(parseSchedule(schedule), { ok: false, error }));
  it('an out-of-range minute is refused', () => assert.equal(parseSchedule('61 * * * *').ok, false));
});

function cronJob(spec: Partial<CronJob['spec']> = {}, status: CronJob['status'] = {}): CronJob {
  return {
    apiVersion: 'batch/v1', kind: 'CronJob',
    metadata: { name: 'cj', namespace: 'default', uid: 'cj-uid', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: {
      schedule: '* * * * *', concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1,
      jobTemplate: { metadata: { labels: { app: 'x' } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
      ...spec,
    } as CronJob['spec'],
    status,
  };
}

function runningJob(name: string, uid: string): Job {
  return { metadata: { name, namespace: 'default', uid, creationTimestamp: '2026-01-01T00:01:00Z' }, spec: { template: {} }, status: { active: 1 } };
}
function finishedJob(name: string, uid: string, type: 'Complete' | 'Failed', start: string): Job {
  return {
    metadata: { name, namespace: 'default', uid, creationTimestamp: start }, spec: { template: {} },
    status: { startTime: start, ...(type === 'Complete' ? { completionTime: start } : {}), conditions: [{ type, status: 'True' }] },
  };
}

describe('mostRecentScheduleTime', () => {
  const sched = (s: string) => { const p = parseSchedule(s); if (!p.ok) throw new Error(p.error); return p.schedule; };
  it('nothing is due before the first time', () => {
    assert.deepEqual(mostRecentScheduleTime(cronJob(), sched('* * * * *'), at('2026-01-01T00:00:30Z')), { missed: 0 });
  });
  it('the latest of several missed times, counted', () => {
    assert.deepEqual(mostRecentScheduleTime(cronJob(), sched('* * * * *'), at('2026-01-01T00:03:10Z')), { scheduledTime: at('2026-01-01T00:03:00Z'), missed: 3 });
  });
  it('counts from the last schedule time', () => {
    const cj = cronJob({}, { lastScheduleTime: '2026-01-01T00:02:00Z' });
    assert.deepEqual(mostRecentScheduleTime(cj, sched('* * * * *'), at('2026-01-01T00:03:10Z')), { scheduledTime: at('2026-01-01T00:03:00Z'), missed: 1 });
  });
  it('startingDeadlineSeconds bounds how far back it looks', () => {
    const cj = cronJob({ startingDeadlineSeconds: 90 });
    assert.equal(mostRecentScheduleTime(cj, sched('* * * * *'), at('2026-01-01T05:00:10Z')).missed, 2);
  });
});

describe('planCronJob', () => {
  it('starts the due job named by minutes since the epoch, annotated with the scheduled time', () => {
    const plan = planCronJob(cronJob(), [], at('2026-01-01T00:01:05Z'));
    const minutes = at('2026-01-01T00:01:00Z') / 60_000;
    assert.equal(plan.create?.metadata?.name, `cj-${minutes}`);
    assert.equal(plan.create?.metadata?.annotations?.[scheduledTimestampAnnotation], '2026-01-01T00:01:00Z');
    assert.equal(plan.create?.metadata?.labels?.app, 'x');
    assert.equal(plan.create?.metadata?.ownerReferences?.[0].kind, 'CronJob');
    assert.equal(plan.status.lastScheduleTime, '2026-01-01T00:01:00Z');
    assert.equal(plan.requeueAfterMs, 55_100);
  });

  it('the scheduled-timestamp annotation is written in the CronJob time zone', () => {
    assert.equal(rfc3339In(at('2026-01-01T08:00:00Z'), 'Europe/Berlin'), '2026-01-01T09:00:00+01:00');
    assert.equal(rfc3339In(at('2026-07-01T08:00:00Z'), 'America/New_York'), '2026-07-01T04:00:00-04:00');
  });

  const concurrency: [string, string, boolean, number, string | undefined][] = [
    ['Allow starts beside a running job', 'Allow', true, 0, undefined],
    ['Forbid skips while a job runs', 'Forbid', false, 0, 'JobAlreadyActive'],
    ['Replace deletes the running job and starts', 'Replace', true, 1, undefined],
  ];
  for (const [name, policy, creates, deletes, reason] of concurrency) {
    it(name, () => {
      const prev = runningJob('cj-old', 'old-uid');
      const cj = cronJob({ concurrencyPolicy: policy }, { active: [{ kind: 'Job', name: 'cj-old', uid: 'old-uid' }], lastScheduleTime: '2026-01-01T00:01:00Z' });
      const plan = planCronJob(cj, [prev], at('2026-01-01T00:02:01Z'));
      assert.equal(!!plan.create, creates);
      assert.equal(plan.deleteJobs.length, deletes);
      assert.equal(plan.events.find((e) => e.reason === 'JobAlreadyActive')?.reason, reason);
    });
  }

  it('suspend starts nothing', () => {
    assert.equal(planCronJob(cronJob({ suspend: true }), [], at('2026-01-01T00:05:00Z')).create, undefined);
  });

  it('a time past the starting deadline is skipped until the next one', () => {
    const cj = cronJob({ schedule: '0 * * * *', startingDeadlineSeconds: 10 }, { lastScheduleTime: '2026-01-01T00:00:00Z' });
    const plan = planCronJob(cj, [], at('2026-01-01T01:00:30Z'));
    assert.equal(plan.create, undefined);
    assert.equal(plan.requeueAfterMs, at('2026-01-01T02:00:00Z') - at('2026-01-01T01:00:30Z') + 100);
  });

  it('more than 100 missed times warn and still start the latest', () => {
    const plan = planCronJob(cronJob(), [], at('2026-01-01T03:00:30Z'));
    assert.equal(plan.events[0].reason, 'TooManyMissedTimes');
    assert.equal(plan.events[0].message, 'too many missed start times: 180. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
    assert.equal(plan.status.lastScheduleTime, '2026-01-01T03:00:00Z');
  });

  it('a finished job leaves active; a Complete one sets lastSuccessfulTime', () => {
    const done = finishedJob('cj-1', 'u1', 'Complete', '2026-01-01T00:01:00Z');
    const cj = cronJob({}, { active: [{ kind: 'Job', name: 'cj-1', uid: 'u1' }], lastScheduleTime: '2026-01-01T00:01:00Z' });
    const plan = planCronJob(cj, [done], at('2026-01-01T00:01:30Z'));
    assert.equal(plan.status.active, undefined);
    assert.equal(plan.status.lastSuccessfulTime, '2026-01-01T00:01:00Z');
    assert.deepEqual(plan.events[0], { type: 'Normal', reason: 'SawCompletedJob', message: 'Saw completed job: cj-1, condition: Complete' });
  });

  // syncCronJob's loop over the Jobs and over status.active, case by case (upstream cronjob_controllerv2.go).
  const activeCases: { name: string; active: string[]; jobs: Job[]; wantActive?: string[]; wantEvents: string[]; wantSuccess?: string }[] = [
    {
      name: 'a running Job the status does not list (kubectl create job --from=cronjob/cj) is warned about, not adopted',
      active: [], jobs: [runningJob('manual', 'm1')], wantEvents: ['Warning UnexpectedJob Saw a job that the controller did not create or forgot: manual'],
    },
    {
      name: 'a finished Job the status does not list still advances lastSuccessfulTime, with no event',
      active: [], jobs: [finishedJob('manual', 'm1', 'Complete', '2026-01-01T00:00:40Z')], wantEvents: [], wantSuccess: '2026-01-01T00:00:40Z',
    },
    {
      name: 'a listed Job that is gone leaves active with MissingJob',
      active: ['cj-1'], jobs: [], wantEvents: ['Normal MissingJob Active job went missing: cj-1'],
    },
    {
      name: 'a listed running Job stays',
      active: ['cj-1'], jobs: [runningJob('cj-1', 'cj-1')], wantActive: ['cj-1'], wantEvents: [],
    },
  ];
  for (const c of activeCases) {
    it(c.name, () => {
      const cj = cronJob({ suspend: true }, { active: c.active.map((n) => ({ kind: 'Job', name: n, uid: n })) });
      const plan = planCronJob(cj, c.jobs, at('2026-01-01T00:01:30Z'));
      assert.deepEqual(plan.status.active?.map((r) => r.name), c.wantActive);
      assert.deepEqual(plan.events.map((e) => `${e.type} ${e.reason} ${e.message}`), c.wantEvents);
      assert.equal(plan.status.lastSuccessfulTime, c.wantSuccess);
    });
  }

  it('history limits delete the oldest finished jobs', () => {
    const jobs = [
      ...[1, 2, 3, 4].map((i) => finishedJob(`ok-${i}`, `ok${i}`, 'Complete', `2026-01-01T00:0${i}:00Z`)),
      ...[1, 2].map((i) => finishedJob(`bad-${i}`, `bad${i}`, 'Failed', `2026-01-01T00:0${i}:00Z`)),
    ];
    const plan = planCronJob(cronJob({ suspend: true }), jobs, at('2026-01-01T00:10:00Z'));
    assert.deepEqual(plan.deleteJobs.map((j) => j.metadata!.name), ['ok-1', 'bad-1']);
  });
});

describe('a schedule whose day of month never comes (robfig/cron checks ranges only)', () => {
  it('59 23 31 2 * parses and never fires', () => {
    const p = parseSchedule('59 23 31 2 *');
    assert.ok(p.ok);
    assert.equal(p.schedule.next(at('2026-01-01T00:00:00Z')), Number.POSITIVE_INFINITY);
  });
  it('the plan creates nothing and asks for no requeue', () => {
    const plan = planCronJob(cronJob({ schedule: '59 23 31 2 *' }), [], at('2026-03-01T00:00:05Z'));
    assert.equal(plan.create, undefined);
    assert.equal(plan.requeueAfterMs, undefined);
    assert.deepEqual(plan.events, []);
  });
});
