/**
 * Deployment helpers (upstream pkg/controller/deployment/util/deployment_util.go
 * and controller.ComputeHash). Pure functions over plain API objects.
 */
import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { computeHash, sortKeys } from '../../api/history.js';
import { scaledValueFromIntOrPercent } from '../../api/intstr.js';
import { rfc3339 } from '../../util/clock.js';

export { computeHash };

/** apps.DefaultDeploymentUniqueLabelKey. */
export const podTemplateHashLabel = 'pod-template-hash';
export const revisionAnnotation = 'deployment.kubernetes.io/revision';
export const revisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history';
export const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
export const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';
const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
const rollbackToAnnotation = 'deprecated.deployment.rollback.to';
/** maxRevHistoryLengthInChars. */
export const maxRevisionHistoryChars = 2000;

/** Annotations a Deployment does not copy onto its ReplicaSets (annotationsToSkip). */
const annotationsToSkip = new Set([lastAppliedAnnotation, revisionAnnotation, revisionHistoryAnnotation, desiredReplicasAnnotation, maxReplicasAnnotation, rollbackToAnnotation]);

// Condition types and reasons, as upstream spells them.
export const progressing = 'Progressing';
export const available = 'Available';
export const replicaFailure = 'ReplicaFailure';
export const reasons = {
  newRSCreated: 'NewReplicaSetCreated', foundNewRS: 'FoundNewReplicaSet', rsUpdated: 'ReplicaSetUpdated',
  newRSAvailable: 'NewReplicaSetAvailable', timedOut: 'ProgressDeadlineExceeded', failedRSCreate: 'ReplicaSetCreateError',
  paused: 'DeploymentPaused', resumed: 'DeploymentResumed',
  minimumAvailable: 'MinimumReplicasAvailable', minimumUnavailable: 'MinimumReplicasUnavailable',
} as const;

export const replicasOf = (o: { spec?: { replicas?: number } } | undefined) => o?.spec?.replicas ?? 0;
export const isRollingUpdate = (d: Deployment) => (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';

/** EqualIgnoreHash: the templates are equal once the pod-template-hash label is dropped from both. */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  const strip = (t: PodTemplateSpec | undefined) => {
    const c: PodTemplateSpec = structuredClone(t ?? {});
    if (c.metadata?.labels) {
      delete c.metadata.labels[podTemplateHashLabel];
      if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels;
    }
    if (c.metadata && Object.keys(c.metadata).length === 0) delete c.metadata;
    return JSON.stringify(sortKeys(c));
  };
  return strip(a) === strip(b);
}

/** ResolveFenceposts: maxSurge rounds up, maxUnavailable down; both 0 makes maxUnavailable 1. */
export function resolveFenceposts(d: Deployment): { surge: number; unavailable: number } {
  const ru = d.spec?.strategy?.rollingUpdate;
  const desired = d.spec?.replicas ?? 1;
  const s = scaledValueFromIntOrPercent(ru?.maxSurge ?? 0, desired, true);
  const u = scaledValueFromIntOrPercent(ru?.maxUnavailable ?? 0, desired, false);
  const surge = 'value' in s ? s.value : 0;
  let unavailable = 'value' in u ? u.value : 0;
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** MaxUnavailable: 0 unless RollingUpdate with replicas; never more than replicas. */
export function maxUnavailable(d: Deployment): number {
  const replicas = d.spec?.replicas ?? 1;
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, replicas);
}

/** MaxSurge: 0 unless RollingUpdate. */
export function maxSurge(d: Deployment): number {
  return isRollingUpdate(d) ? resolveFenceposts(d).surge : 0;
}

export const revisionOf = (rs: ReplicaSet): number => {
  const v = rs.metadata?.annotations?.[revisionAnnotation];
  const n = v === undefined ? 0 : Number(v);
  return Number.isInteger(n) ? n : 0;
};

/** MaxRevision over the ReplicaSets. */
export const maxRevision = (rss: readonly ReplicaSet[]) => rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);

const created = (o: { metadata?: { creationTimestamp?: string } }) => Date.parse(o.metadata?.creationTimestamp ?? '') || 0;
const byName = (a: ReplicaSet, b: ReplicaSet) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : (a.metadata?.name ?? '') > (b.metadata?.name ?? '') ? 1 : 0);

/** ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export const byCreation = (a: ReplicaSet, b: ReplicaSet) => created(a) - created(b) || byName(a, b);
/** ReplicaSetsByRevision: lowest revision first, then by creation. */
export const byRevision = (a: ReplicaSet, b: ReplicaSet) => revisionOf(a) - revisionOf(b) || byCreation(a, b);
/** ReplicaSetsBySizeNewer: larger first; equal sizes newer first. */
export const bySizeNewer = (a: ReplicaSet, b: ReplicaSet) => replicasOf(b) - replicasOf(a) || byCreation(b, a);
/** ReplicaSetsBySizeOlder: larger first; equal sizes older first. */
export const bySizeOlder = (a: ReplicaSet, b: ReplicaSet) => replicasOf(b) - replicasOf(a) || byCreation(a, b);

/** FilterActiveReplicaSets: spec.replicas > 0. */
export const activeReplicaSets = (rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] => rss.filter((rs): rs is ReplicaSet => !!rs && replicasOf(rs) > 0);

/** FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's, ignoring the hash label. */
export function findNewReplicaSet(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

export function findOldReplicaSets(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet[] {
  const newRS = findNewReplicaSet(d, rss);
  return rss.filter((rs) => rs.metadata?.uid !== newRS?.metadata?.uid);
}

export const sumSpec = (rss: readonly (ReplicaSet | undefined)[]) => rss.reduce((n, rs) => n + (rs ? replicasOf(rs) : 0), 0);
export const sumStatus = (rss: readonly (ReplicaSet | undefined)[], f: 'replicas' | 'readyReplicas' | 'availableReplicas') =>
  rss.reduce((n, rs) => n + (rs?.status?.[f] ?? 0), 0);

export const hasProgressDeadline = (d: Deployment) => d.spec?.progressDeadlineSeconds !== undefined && d.spec.progressDeadlineSeconds !== 2147483647;

/** NewDeploymentCondition. */
export function newCondition(type: string, status: string, reason: string, message: string, now: Date): DeploymentCondition {
  const t = rfc3339(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

export const getCondition = (s: DeploymentStatus | undefined, type: string) => (s?.conditions ?? []).find((c) => c.type === type);

/** SetDeploymentCondition: no change for the same status and reason; keep lastTransitionTime for the same status. */
export function setCondition(s: DeploymentStatus, c: DeploymentCondition): void {
  const cur = getCondition(s, c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return;
  if (cur && cur.status === c.status) c = { ...c, lastTransitionTime: cur.lastTransitionTime };
  s.conditions = [...(s.conditions ?? []).filter((x) => x.type !== c.type), c];
}

export function removeCondition(s: DeploymentStatus, type: string): void {
  if (!s.conditions) return;
  s.conditions = s.conditions.filter((c) => c.type !== type);
  if (s.conditions.length === 0) delete s.conditions;
}

/** SetReplicasAnnotations: desired-replicas and max-replicas; whether anything changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = (rs.metadata!.annotations ??= {});
  let changed = false;
  for (const [k, v] of [[desiredReplicasAnnotation, String(desired)], [maxReplicasAnnotation, String(max)]]) {
    if (a[k] !== v) { a[k] = v; changed = true; }
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = rs.metadata?.annotations ?? {};
  return a[desiredReplicasAnnotation] !== String(desired) || a[maxReplicasAnnotation] !== String(max);
}

export function desiredReplicasAnnotationOf(rs: ReplicaSet): number | undefined {
  const v = rs.metadata?.annotations?.[desiredReplicasAnnotation];
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) ? n : undefined;
}

/**
 * SetNewReplicaSetAnnotations: copy the Deployment's annotations (but the
 * skipped ones), raise the revision to newRevision (remembering the old one
 * in revision-history, capped at 2,000 characters), and on a new ReplicaSet
 * set the replicas annotations. Whether anything changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean): boolean {
  const a = (rs.metadata!.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (annotationsToSkip.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const old = a[revisionAnnotation];
  const oldRevision = old === undefined ? 0 : Number(old);
  if (!Number.isInteger(oldRevision)) return changed;
  if (oldRevision < newRevision) {
    a[revisionAnnotation] = String(newRevision);
    changed = true;
    if (old !== undefined) appendRevisionHistory(a, old);
  }
  if (!exists && setReplicasAnnotations(rs, d.spec?.replicas ?? 1, (d.spec?.replicas ?? 1) + maxSurge(d))) changed = true;
  return changed;
}

/** A ReplicaSet rolled back to: keep its earlier revision numbers, oldest dropped beyond the limit. */
function appendRevisionHistory(a: Record<string, string>, oldRevision: string): void {
  const history = a[revisionHistoryAnnotation] ?? '';
  if (!history) { a[revisionHistoryAnnotation] = oldRevision; return; }
  const parts = history.split(',');
  let total = history.length + oldRevision.length + 1;
  let start = 0;
  while (total > maxRevisionHistoryChars && start < parts.length) total -= parts[start++].length + 1;
  if (total <= maxRevisionHistoryChars) a[revisionHistoryAnnotation] = [...parts.slice(start), oldRevision].join(',');
}
