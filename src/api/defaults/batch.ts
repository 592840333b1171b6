/**
 * batch/v1 defaulting (pkg/apis/batch/v1/defaults.go, 1.32): Job completions,
 * parallelism, backoff limits, completion mode, suspend, pod failure policy
 * pattern status, pod replacement policy, manualSelector; CronJob concurrency,
 * suspend and history limits; and the pod-spec defaults of every template.
 */
import { defaultPodTemplate } from './pod.js';
import { Obj, ensure, isObj, objects, setDefault } from './util.js';

const maxInt32 = 2147483647;

export function defaultJob(job: Obj): void {
  const spec = ensure(job, 'spec');
  // A non-parallel job may leave both unset: both become 1.
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', spec.backoffLimitPerIndex != null ? maxInt32 : 6);
  const templateLabels = isObj(spec.template) && isObj(spec.template.metadata) ? spec.template.metadata.labels : undefined;
  const meta = ensure(job, 'metadata');
  if (isObj(templateLabels) && (!isObj(meta.labels) || Object.keys(meta.labels).length === 0)) meta.labels = { ...templateLabels };
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  if (isObj(spec.podFailurePolicy)) {
    for (const rule of objects(spec.podFailurePolicy.rules)) {
      for (const pattern of objects(rule.onPodConditions)) setDefault(pattern, 'status', 'True');
    }
  }
  setDefault(spec, 'podReplacementPolicy', isObj(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed');
  setDefault(spec, 'manualSelector', false);
  defaultPodTemplate(spec.template);
}

/** CronJobs: the job template only gets its pod template's defaults (SetDefaults_Job is for Jobs). */
export function defaultCronJob(cj: Obj): void {
  const spec = ensure(cj, 'spec');
  setDefault(spec, 'concurrencyPolicy', 'Allow');
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'successfulJobsHistoryLimit', 3);
  setDefault(spec, 'failedJobsHistoryLimit', 1);
  const jobTemplate = spec.jobTemplate;
  if (isObj(jobTemplate) && isObj(jobTemplate.spec)) {
    for (const rule of objects(jobTemplate.spec.podFailurePolicy?.rules)) {
      for (const pattern of objects(rule.onPodConditions)) setDefault(pattern, 'status', 'True');
    }
    defaultPodTemplate(jobTemplate.spec.template);
  }
}
