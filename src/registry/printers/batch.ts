/**
 * batch/v1: Job and CronJob, as upstream's printJob and printCronJob (1.32):
 * jobs NAME STATUS COMPLETIONS DURATION AGE, cronjobs NAME SCHEDULE TIMEZONE
 * SUSPEND ACTIVE LAST SCHEDULE AGE, each with CONTAINERS IMAGES SELECTOR wide.
 */
import type { CronJob, Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import { ageColumn, column, containersColumn, docColumn, imagesColumn, nameColumn } from './columns.js';
import { humanDuration, parseTime, timestampSince } from './duration.js';
import { formatLabelSelector, layoutContainerCells } from './format.js';
import type { KindPrinter, PrintContext, TableRow } from './types.js';

const age = (obj: { metadata?: { creationTimestamp?: string } }, ctx: PrintContext) => timestampSince(obj.metadata?.creationTimestamp, ctx.now);

const hasCondition = (conds: JobCondition[] | undefined, type: string) => (conds ?? []).some((c) => c.type === type && c.status === 'True');

/** "2/3", or without completions "1/1" (or "0/1 of 4" for a work queue with parallelism). */
function jobCompletions(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (job.spec?.completions != null) return `${succeeded}/${job.spec.completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** Since start while running, start to completion once complete; empty before the start. */
function jobDuration(job: Job, now: Date): string {
  const start = parseTime(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTime(job.status?.completionTime);
  return humanDuration((end ?? now.getTime()) - start);
}

function jobStatus(job: Job): string {
  const conds = job.status?.conditions;
  if (hasCondition(conds, 'Complete')) return 'Complete';
  if (hasCondition(conds, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(conds, 'Suspended')) return 'Suspended';
  if (hasCondition(conds, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

export const jobPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Status', 'Status of the job.'),
    docColumn('Completions', 'batchv1.JobStatus.succeeded'),
    column('Duration', 'Time required to complete the job.'),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    docColumn('Selector', 'batchv1.JobSpec.selector', { priority: 1 }),
  ],
  row(job: Job, ctx): TableRow {
    const [names, images] = layoutContainerCells(job.spec?.template?.spec?.containers);
    return {
      cells: [
        job.metadata?.name ?? '', jobStatus(job), jobCompletions(job), jobDuration(job, ctx.now), age(job, ctx),
        names, images, formatLabelSelector(job.spec?.selector),
      ],
    };
  },
};

/** printBoolPtr. */
const boolPtr = (v: boolean | undefined) => (v === undefined || v === null ? '<unset>' : v ? 'True' : 'False');

export const cronJobPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('Schedule', 'batchv1beta1.CronJobSpec.schedule'),
    docColumn('Timezone', 'batchv1beta1.CronJobSpec.timeZone'),
    docColumn('Suspend', 'batchv1beta1.CronJobSpec.suspend', { type: 'boolean' }),
    docColumn('Active', 'batchv1beta1.CronJobStatus.active', { type: 'integer' }),
    docColumn('Last Schedule', 'batchv1beta1.CronJobStatus.lastScheduleTime'),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    docColumn('Selector', 'batchv1.JobSpec.selector', { priority: 1 }),
  ],
  row(cj: CronJob, ctx): TableRow {
    const jobSpec = cj.spec?.jobTemplate?.spec;
    const [names, images] = layoutContainerCells(jobSpec?.template?.spec?.containers);
    const last = cj.status?.lastScheduleTime ? timestampSince(cj.status.lastScheduleTime, ctx.now) : '<none>';
    return {
      cells: [
        cj.metadata?.name ?? '', cj.spec?.schedule ?? '', cj.spec?.timeZone ?? '<none>', boolPtr(cj.spec?.suspend),
        (cj.status?.active ?? []).length, last, age(cj, ctx), names, images, formatLabelSelector(jobSpec?.selector),
      ],
    };
  },
};
