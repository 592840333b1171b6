/**
 * A StatefulSet pod's identity (upstream stateful_set_utils.go): its name
 * `<set>-<ordinal>`, labels, hostname/subdomain, claims and revision, and
 * the pod predicates the controller orders its work by. Pure.
 *
 * Rules, in the order the code applies them:
 * 1. A pod's parent and ordinal come from its name, `(.*)-([0-9]+)$`; a name
 *    without a parsable 32-bit ordinal has ordinal -1 and is ignored.
 * 2. The set owns ordinals [ordinals.start, ordinals.start + replicas).
 * 3. A pod's identity matches when its name is `<set>-<ordinal>`, its
 *    namespace is the set's and its `statefulset.kubernetes.io/pod-name`
 *    label is its name; storage matches when every claim template has a
 *    volume of that name using claim `<template>-<set>-<ordinal>`.
 * 4. A new pod is the template (labels, annotations, finalizers, spec) with
 *    generateName `<set>-`, the set as controller, the identity labels
 *    (pod-name, pod-index), hostname = name, subdomain = serviceName, the
 *    claim volumes first, and label `controller-revision-hash` = the name of
 *    the revision it was made from.
 * 5. A new pod gets the current revision when its ordinal is below
 *    start + partition (RollingUpdate), otherwise the update revision.
 */
import { podCondition, podIsAvailable } from '../../api/pods.js';
import { newControllerRef } from '../../api/history.js';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod, PodSpec, PodTemplateSpec, Volume } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

export const podNameLabel = 'statefulset.kubernetes.io/pod-name';
export const podIndexLabel = 'apps.kubernetes.io/pod-index';
export const revisionLabel = 'controller-revision-hash';
export const statefulSetKind = { apiVersion: 'apps/v1', kind: 'StatefulSet' } as const;
export const podKind = { apiVersion: 'v1', kind: 'Pod' } as const;

const statefulPodRegex = /^(.*)-([0-9]+)$/s;
const maxInt32 = 2 ** 31 - 1;

/** getParentNameAndOrdinal: ('', -1) when the name has no ordinal. */
export function parentNameAndOrdinal(name: string): { parent: string; ordinal: number } {
  const m = statefulPodRegex.exec(name ?? '');
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  return { parent: m[1], ordinal: Number.isSafeInteger(n) && n <= maxInt32 ? n : -1 };
}

export const getOrdinal = (pod: Pod): number => parentNameAndOrdinal(pod.metadata!.name!).ordinal;
export const getStartOrdinal = (set: StatefulSet): number => set.spec?.ordinals?.start ?? 0;
export const getReplicas = (set: StatefulSet): number => set.spec?.replicas ?? 1;
/** The last ordinal the set owns (inclusive). */
export const getEndOrdinal = (set: StatefulSet): number => getStartOrdinal(set) + getReplicas(set) - 1;

export function podInOrdinalRange(pod: Pod, set: StatefulSet): boolean {
  const o = getOrdinal(pod);
  return o >= getStartOrdinal(set) && o <= getEndOrdinal(set);
}

export const podName = (set: StatefulSet, ordinal: number): string => `${set.metadata!.name}-${ordinal}`;
export const claimName = (set: StatefulSet, template: PersistentVolumeClaim, ordinal: number): string => `${template.metadata?.name}-${set.metadata!.name}-${ordinal}`;
export const isMemberOf = (set: StatefulSet, pod: Pod): boolean => parentNameAndOrdinal(pod.metadata!.name!).parent === set.metadata!.name;

export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = parentNameAndOrdinal(pod.metadata!.name!);
  return ordinal >= 0 && parent === set.metadata!.name && pod.metadata!.name === podName(set, ordinal)
    && pod.metadata!.namespace === set.metadata!.namespace && pod.metadata!.labels?.[podNameLabel] === pod.metadata!.name;
}

export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = getOrdinal(pod);
  if (ordinal < 0) return false;
  const volumes = new Map<string, Volume>((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const v = volumes.get(t.metadata?.name as string);
    if (v?.persistentVolumeClaim?.claimName !== claimName(set, t, ordinal)) return false;
  }
  return true;
}

/** getPersistentVolumeClaims: the pod's claims in template order, labelled with the template's and the selector's labels. */
export function getPersistentVolumeClaims(set: StatefulSet, pod: Pod): { template: string; claim: PersistentVolumeClaim }[] {
  const ordinal = getOrdinal(pod);
  const matchLabels = set.spec?.selector?.matchLabels ?? {};
  return (set.spec?.volumeClaimTemplates ?? []).map((t) => {
    const claim = structuredClone(t);
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    claim.metadata = { ...(claim.metadata ?? {}), name: claimName(set, t, ordinal), namespace: set.metadata!.namespace };
    claim.metadata.labels = { ...(claim.metadata.labels ?? {}), ...matchLabels };
    return { template: t.metadata?.name as string, claim };
  });
}

/** updateStorage: a claim volume per template (first), then the pod's other volumes. */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const claims = getPersistentVolumeClaims(set, pod);
  const names = new Set(claims.map((c) => c.template));
  const volumes: Volume[] = claims.map((c) => ({ name: c.template, persistentVolumeClaim: { claimName: c.claim.metadata!.name! } }));
  for (const v of pod.spec?.volumes ?? []) if (!names.has(v.name)) volumes.push(v);
  pod.spec = pod.spec ?? ({} as PodSpec);
  if (volumes.length) pod.spec!.volumes = volumes;
}

/** updateIdentity: name, namespace and the pod-name and pod-index labels. */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ordinal = getOrdinal(pod);
  pod.metadata!.name = podName(set, ordinal);
  pod.metadata!.namespace = set.metadata!.namespace;
  pod.metadata!.labels = { ...(pod.metadata!.labels ?? {}), [podNameLabel]: pod.metadata!.name, [podIndexLabel]: String(ordinal) };
}

/** initIdentity: updateIdentity plus the immutable hostname and subdomain. */
function initIdentity(set: StatefulSet, pod: Pod): void {
  updateIdentity(set, pod);
  pod.spec!.hostname = pod.metadata!.name;
  if (set.spec?.serviceName) pod.spec!.subdomain = set.spec.serviceName;
}

export const isCreated = (pod: Pod): boolean => !!pod.status?.phase;
export const isPending = (pod: Pod): boolean => pod.status?.phase === 'Pending';
export const isFailed = (pod: Pod): boolean => pod.status?.phase === 'Failed';
export const isSucceeded = (pod: Pod): boolean => pod.status?.phase === 'Succeeded';
export const isTerminating = (pod: Pod): boolean => !!pod.metadata?.deletionTimestamp;
export const isRunningAndReady = (pod: Pod): boolean => pod.status?.phase === 'Running' && podCondition(pod, 'Ready')?.status === 'True';
export const isRunningAndAvailable = (pod: Pod, minReadySeconds: number, now: Date): boolean => podIsAvailable(pod, minReadySeconds, now);
export const isHealthy = (pod: Pod): boolean => isRunningAndReady(pod) && !isTerminating(pod);

export const getPodRevision = (pod: Pod): string => pod.metadata?.labels?.[revisionLabel] ?? '';

function setPodRevision(pod: Pod, revision: string): void {
  pod.metadata!.labels = { ...(pod.metadata!.labels ?? {}), [revisionLabel]: revision };
}

/** newStatefulSetPod: GetPodFromTemplate, then the identity and the claim volumes. */
export function newStatefulSetPod(set: StatefulSet, ordinal: number): Pod {
  const t: PodTemplateSpec = set.spec?.template ?? {};
  const metadata: ObjectMeta = {
    name: podName(set, ordinal),
    generateName: `${set.metadata!.name}-`,
    namespace: set.metadata!.namespace,
    labels: { ...(t.metadata?.labels ?? {}) },
    ownerReferences: [newControllerRef(set, statefulSetKind)],
  };
  if (t.metadata?.annotations) metadata.annotations = { ...t.metadata.annotations };
  if (t.metadata?.finalizers?.length) metadata.finalizers = [...t.metadata.finalizers];
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata, spec: structuredClone(t.spec ?? ({} as PodSpec)) };
  initIdentity(set, pod);
  updateStorage(set, pod);
  return pod;
}

/** newVersionedStatefulSetPod: below the partition the current revision, otherwise the update revision. */
export function newVersionedStatefulSetPod(o: {
  currentSet: StatefulSet; updateSet: StatefulSet; currentRevision: string; updateRevision: string; ordinal: number;
}): Pod {
  const { currentSet, ordinal } = o;
  const strategy = currentSet.spec?.updateStrategy ?? {};
  const rolling = (strategy.type ?? 'RollingUpdate') === 'RollingUpdate';
  const start = getStartOrdinal(currentSet);
  // Upstream's condition, precedence and all: (RollingUpdate && no rollingUpdate && below currentReplicas) || (rollingUpdate && below partition).
  const useCurrent = (rolling && !strategy.rollingUpdate && ordinal < start + (currentSet.status?.currentReplicas ?? 0))
    || (!!strategy.rollingUpdate && ordinal < start + (strategy.rollingUpdate.partition ?? 0));
  const pod = newStatefulSetPod(useCurrent ? currentSet : o.updateSet, ordinal);
  setPodRevision(pod, useCurrent ? o.currentRevision : o.updateRevision);
  return pod;
}
