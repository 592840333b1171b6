/**
 * Job pods: how the controller sees them (active, terminating, failed,
 * finished, when) and how it makes them (upstream job_controller.go and
 * indexed_job_utils.go): the job-tracking finalizer, the controller
 * reference, and for Indexed Jobs the completion index annotation and label,
 * the hostname <job>-<index> and the JOB_COMPLETION_INDEX variable.
 */
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { completionIndexAnnotation, indexFailureCountAnnotation, indexIgnoredFailureCountAnnotation } from './indexes.js';

export const jobTrackingFinalizer = 'batch.kubernetes.io/job-tracking';

export const hasTrackingFinalizer = (pod: Pod) => (pod.metadata?.finalizers ?? []).includes(jobTrackingFinalizer);
export const isTerminating = (pod: Pod) => !!pod.metadata?.deletionTimestamp;
export const isSucceeded = (pod: Pod) => pod.status?.phase === 'Succeeded';

/**
 * isPodFailed: phase Failed; or, unless only failed pods are replaced
 * (podReplacementPolicy Failed), a pod being deleted before it succeeded.
 */
export function isPodFailed(pod: Pod, job: Job): boolean {
  if (pod.status?.phase === 'Failed') return true;
  if (job.spec?.podReplacementPolicy === 'Failed') return false;
  return isTerminating(pod) && !isSucceeded(pod);
}

/** A pod that counts as running: not finished and not being deleted. */
export const isActive = (pod: Pod) => !isTerminating(pod) && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';

export const isReady = (pod: Pod) => (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** getFinishedTime: the latest container termination, else the Ready condition's last change, else the deletion time, else `now`. */
export function finishTime(pod: Pod, now: number): number {
  let latest = 0;
  for (const cs of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) {
    const t = Date.parse(cs.state?.terminated?.finishedAt ?? '');
    if (!Number.isNaN(t)) latest = Math.max(latest, t);
  }
  if (latest) return latest;
  const ready = (pod.status?.conditions ?? []).find((c) => c.type === 'Ready');
  const t = Date.parse(ready?.lastTransitionTime ?? pod.metadata?.deletionTimestamp ?? '');
  return Number.isNaN(t) ? now : t;
}

/** The sum of container restarts, which count as failures for restartPolicy OnFailure. */
export const podRestarts = (pod: Pod) => (pod.status?.containerStatuses ?? []).reduce((n, cs) => n + (cs.restartCount ?? 0), 0);

export const jobControllerRef = (job: Job) => ({
  apiVersion: 'batch/v1', kind: 'Job', name: job.metadata!.name!, uid: job.metadata!.uid!, controller: true, blockOwnerDeletion: true,
});

export interface PodToCreate {
  index?: number;
  /** backoffLimitPerIndex: failures (and ignored failures) of the index so far. */
  failureCount?: number;
  ignoredFailureCount?: number;
}

function withIndexEnv(c: Container): Container {
  const env = (c.env ?? []).filter((e) => e.name !== 'JOB_COMPLETION_INDEX');
  env.push({ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${completionIndexAnnotation}']` } } });
  return { ...c, env };
}

/** The pod a Job creates from its template. */
export function newJobPod(job: Job, want: PodToCreate): Pod {
  const template = structuredClone(job.spec?.template ?? {});
  const name = job.metadata!.name!;
  const labels = { ...(template.metadata?.labels ?? {}) };
  const annotations = { ...(template.metadata?.annotations ?? {}) };
  const spec = { ...template.spec!, containers: template.spec?.containers ?? [] };
  let generateName = `${name}-`;
  if (want.index !== undefined) {
    const index = String(want.index);
    generateName = `${name}-${index}-`;
    annotations[completionIndexAnnotation] = index;
    labels[completionIndexAnnotation] = index;
    spec.hostname ??= `${name}-${index}`;
    spec.containers = spec.containers.map(withIndexEnv);
    if (spec.initContainers) spec.initContainers = spec.initContainers.map(withIndexEnv);
    if (job.spec?.backoffLimitPerIndex != null) {
      annotations[indexFailureCountAnnotation] = String(want.failureCount ?? 0);
      if (want.ignoredFailureCount) annotations[indexIgnoredFailureCountAnnotation] = String(want.ignoredFailureCount);
    }
  }
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      generateName, namespace: job.metadata!.namespace, labels, annotations,
      finalizers: [jobTrackingFinalizer], ownerReferences: [jobControllerRef(job)],
    },
    spec,
  };
}
