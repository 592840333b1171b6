/**
 * DaemonSet helpers (upstream `pkg/controller/daemon/util/daemonset_util.go`
 * and the intstr arithmetic of apimachinery). Pure functions over plain API
 * objects.
 */
import { scaledValueFromIntOrPercent, type Scaled } from '../../api/intstr.js';
import { addOrUpdateToleration } from '../../api/tolerations.js';
import type { Toleration } from '../../api/tolerations.js';
import { replaceNodeNameAffinity } from '../../api/nodeaffinity.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Pod, PodSpec, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';

/** apps.DefaultDaemonSetUniqueLabelKey / ControllerRevisionHashLabelKey. */
export const controllerRevisionHashLabel = 'controller-revision-hash';
/** extensions.DaemonSetTemplateGenerationKey: deprecated, still set on every pod. */
export const templateGenerationLabel = 'pod-template-generation';
/** apps.DeprecatedTemplateGeneration: the annotation the apiserver keeps on DaemonSets. */
export const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';
export const changeCauseAnnotation = 'kubernetes.io/change-cause';

/**
 * The tolerations every DaemonSet pod gets (AddOrUpdateDaemonPodTolerations),
 * operator Exists and no tolerationSeconds, so node problems never evict them:
 * not-ready and unreachable NoExecute; disk-pressure, memory-pressure,
 * pid-pressure and unschedulable NoSchedule; network-unavailable NoSchedule
 * only for hostNetwork pods.
 */
export function daemonPodTolerations(hostNetwork: boolean): Toleration[] {
  const t = (key: string, effect: string): Toleration => ({ key, operator: 'Exists', effect });
  const out = [
    t('node.kubernetes.io/not-ready', 'NoExecute'),
    t('node.kubernetes.io/unreachable', 'NoExecute'),
    t('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    t('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    t('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    t('node.kubernetes.io/unschedulable', 'NoSchedule'),
  ];
  if (hostNetwork) out.push(t('node.kubernetes.io/network-unavailable', 'NoSchedule'));
  return out;
}

/** A copy of the pod spec with the daemon tolerations added or updated in place of matching ones. */
export function addDaemonPodTolerations(spec: PodSpec): PodSpec {
  const out = structuredClone(spec ?? {});
  let tolerations: Toleration[] | undefined = out.tolerations;
  for (const t of daemonPodTolerations(!!out.hostNetwork)) tolerations = addOrUpdateToleration(tolerations, t).tolerations;
  out.tolerations = tolerations;
  return out;
}

/** GetTemplateGeneration: the deprecated annotation, or undefined when absent or unparsable. */
export function templateGeneration(ds: DaemonSet): number | undefined {
  const a = ds?.metadata?.annotations?.[templateGenerationAnnotation];
  if (a === undefined || !/^-?\d+$/.test(a)) return undefined;
  return Number(a);
}

/**
 * CreatePodTemplate: the DaemonSet's template with the daemon tolerations,
 * the pod-template-generation label (when the generation is known) and the
 * controller-revision-hash label.
 */
export function createPodTemplate(template: PodTemplateSpec, generation: number | undefined, hash: string): PodTemplateSpec {
  const t = structuredClone(template ?? {});
  t.metadata ??= {};
  t.spec = addDaemonPodTolerations(t.spec!);
  t.metadata.labels = { ...(t.metadata.labels ?? {}) };
  if (generation !== undefined) t.metadata.labels[templateGenerationLabel] = String(generation);
  if (hash) t.metadata.labels[controllerRevisionHashLabel] = hash;
  return t;
}

/** The pod a DaemonSet controller creates for one node (GetPodFromTemplate plus the node-name affinity). */
export function newDaemonPod(ds: DaemonSet, template: PodTemplateSpec, nodeName: string): Pod {
  const meta = template.metadata ?? {};
  const metadata: ObjectMeta = {
    generateName: `${ds.metadata!.name}-`,
    namespace: ds.metadata!.namespace,
    labels: { ...(meta.labels ?? {}) },
    ownerReferences: [controllerRefTo(ds)],
  };
  if (meta.annotations) metadata.annotations = { ...meta.annotations };
  if (meta.finalizers) metadata.finalizers = [...meta.finalizers];
  const spec: PodSpec = structuredClone(template.spec ?? ({} as PodSpec));
  spec.affinity = replaceNodeNameAffinity(spec.affinity, nodeName);
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

/** metav1.NewControllerRef(ds, apps/v1 DaemonSet). */
export function controllerRefTo(ds: DaemonSet): OwnerReference {
  return { apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata!.name!, uid: ds.metadata!.uid!, controller: true, blockOwnerDeletion: true };
}

/** IsPodUpdated: the pod carries the current hash, or the current template generation. */
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod?.metadata?.labels ?? {};
  const templateMatches = generation !== undefined && labels[templateGenerationLabel] === String(generation);
  const hashMatches = hash.length > 0 && labels[controllerRevisionHashLabel] === hash;
  return hashMatches || templateMatches;
}

/**
 * GetTargetNodeName: spec.nodeName, else the single value of the
 * `matchFields metadata.name In [...]` term of a pending pod; undefined when neither.
 */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod?.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const e of term.matchFields ?? []) {
      if (e.key === 'metadata.name' && e.operator === 'In') return e.values?.length === 1 ? e.values[0] : undefined;
    }
  }
  return undefined;
}

export { scaledValueFromIntOrPercent };
export type { IntOrString, Scaled } from '../../api/intstr.js';

const rollingUpdate = (ds: DaemonSet) => (ds?.spec?.updateStrategy?.type === 'RollingUpdate' ? ds.spec.updateStrategy.rollingUpdate : undefined);

/** SurgeCount: 0 unless RollingUpdate with maxSurge; otherwise maxSurge of numberToSchedule, rounded up. */
export function surgeCount(ds: DaemonSet, numberToSchedule: number): Scaled {
  const r = rollingUpdate(ds);
  if (!r || r.maxSurge === undefined || r.maxSurge === null) return { value: 0 };
  return scaledValueFromIntOrPercent(r.maxSurge, numberToSchedule, true);
}

/** UnavailableCount: 0 unless RollingUpdate; otherwise maxUnavailable of numberToSchedule, rounded up. */
export function unavailableCount(ds: DaemonSet, numberToSchedule: number): Scaled {
  const r = rollingUpdate(ds);
  if (!r) return { value: 0 };
  return scaledValueFromIntOrPercent(r.maxUnavailable, numberToSchedule, true);
}

/** AllowsSurge: more than one pod may run on a node during an update. */
export function allowsSurge(ds: DaemonSet): boolean {
  const s = surgeCount(ds, 1);
  return 'value' in s && s.value > 0;
}

/**
 * podByCreationTimestampAndPhase: scheduled pods first, then the oldest
 * (creationTimestamp, second precision), then by name.
 */
export function compareDaemonPods(a: Pod, b: Pod): number {
  const sa = !!a.spec?.nodeName;
  const sb = !!b.spec?.nodeName;
  if (sa !== sb) return sa ? -1 : 1;
  const ta = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

export const podIsFailed = (pod: Pod) => pod?.status?.phase === 'Failed';
export const podIsSucceeded = (pod: Pod) => pod?.status?.phase === 'Succeeded';
export const isDeleting = (obj: { metadata?: ObjectMeta } | undefined) => !!obj?.metadata?.deletionTimestamp;
