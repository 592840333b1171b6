/**
 * CronJobs (batch/v1): a schedule robfig/cron's ParseStandard accepts (no TZ
 * in it), a known time zone, a concurrency policy, non-negative history limits
 * and deadline, a job template whose selector will be generated, and names of
 * at most 52 characters (the controller appends an 11-character suffix).
 */
import { knownTimeZone, parseSchedule } from '../cron.js';
import { FieldError, invalid, notSupported, required } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { goLabelSelector } from './govalue.js';
import { validateJobSpecFields } from './job.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, child, goValue, has, isObj, nonNegative, obj, str } from './util.js';
import { appendAll } from '../append.js';

const maxCronJobNameLength = 52;
const validTimeZoneCharacters = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateSchedule(schedule: string, allowTZ: boolean, timeZone: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const parsed = parseSchedule(schedule);
  if (!parsed.ok) errs.push(invalid(path, schedule, parsed.error));
  if (allowTZ && schedule.includes('TZ') && has(timeZone)) errs.push(invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  else if (!allowTZ && schedule.includes('TZ')) errs.push(invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  return errs;
}

/** validateTimeZone: IANA naming rules, not "Local", and known to the time zone database. */
function validateTimeZone(tz: unknown, path: string): FieldError[] {
  if (!has(tz)) return [];
  const name = str(tz);
  if (name === '') return [invalid(path, name, 'timeZone must be nil or non-empty string')];
  for (const part of name.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !validTimeZoneCharacters.test(part)) return [invalid(path, name, `unknown time zone ${name}`)];
  }
  if (name.toLowerCase() === 'local') return [invalid(path, name, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones')];
  return knownTimeZone(name) ? [] : [invalid(path, name, `unknown time zone ${name}`)];
}

function validateConcurrencyPolicy(policy: unknown, path: string): FieldError[] {
  const p = str(policy);
  if (['Allow', 'Forbid', 'Replace'].includes(p)) return [];
  return p === '' ? [required(path)] : [notSupported(path, p, ['Allow', 'Forbid', 'Replace'])];
}

/** ValidateJobTemplateSpec: the job spec rules; the selector is always generated. */
function validateJobTemplate(template: unknown, path: string): FieldError[] {
  const spec = obj(obj(template).spec);
  const specPath = child(path, 'spec');
  const errs = validateJobSpecFields(spec, specPath);
  if (isObj(spec.selector)) errs.push(invalid(child(specPath, 'selector'), goLabelSelector(spec.selector), '`selector` will be auto-generated'));
  if (spec.manualSelector === true) errs.push(notSupported(child(specPath, 'manualSelector'), goValue('true'), ['nil', 'false']));
  return errs;
}

function validateCronJobSpec(specRaw: unknown, oldRaw: Obj | undefined, path: string): FieldError[] {
  const spec = obj(specRaw);
  const errs: FieldError[] = [];
  const schedule = str(spec.schedule);
  if (!schedule) errs.push(required(child(path, 'schedule')));
  else appendAll(errs, validateSchedule(schedule, oldRaw ? str(oldRaw.schedule).includes('TZ') : false, spec.timeZone, child(path, 'schedule')));
  appendAll(errs, nonNegative(spec.startingDeadlineSeconds, child(path, 'startingDeadlineSeconds')));
  if (!oldRaw || oldRaw.timeZone !== spec.timeZone) appendAll(errs, validateTimeZone(spec.timeZone, child(path, 'timeZone')));
  appendAll(errs, validateConcurrencyPolicy(spec.concurrencyPolicy, child(path, 'concurrencyPolicy')));
  appendAll(errs, validateJobTemplate(spec.jobTemplate, child(path, 'jobTemplate')));
  appendAll(errs, nonNegative(spec.successfulJobsHistoryLimit, child(path, 'successfulJobsHistoryLimit')));
  appendAll(errs, nonNegative(spec.failedJobsHistoryLimit, child(path, 'failedJobsHistoryLimit')));
  return errs;
}

export function validateCronJobCreate(cj: Obj): FieldError[] {
  const errs = [...validateObjectMeta(cj.metadata, true, nameIsDNSSubdomain), ...validateCronJobSpec(cj.spec, undefined, 'spec')];
  const name = str(obj(cj.metadata).name);
  if (name.length > maxCronJobNameLength) errs.push(invalid('metadata.name', name, `must be no more than ${maxCronJobNameLength} characters`));
  return errs;
}

/** Updates skip the 52-character limit, so older long-named CronJobs can still be changed or deleted. */
export function validateCronJobUpdate(cj: Obj, old: Obj, subresource?: string): FieldError[] {
  const meta = validateObjectMetaUpdate(cj.metadata, old.metadata);
  if (subresource === 'status') return meta;
  return [...meta, ...validateCronJobSpec(cj.spec, obj(old.spec), 'spec')];
}
