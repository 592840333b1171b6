/** The CronJob controller and the pure rules it is built from. */
export { cronJobController, CronJobController } from './controller.js';
export { planCronJob, jobFromTemplate, scheduledTimestampAnnotation } from './plan.js';
export type { CronJobPlan, PlanEvent } from './plan.js';
export { mostRecentScheduleTime, jobNameFor, rfc3339In, tooManyMissed } from './schedule.js';
