/**
 * The form in which the scheduler cache keeps an assigned pod: the few members the plugins read
 * of a pod already on a node, and what the pod counts on it. Upstream's cache keeps the whole
 * pod (framework.PodInfo); here the control loops' informers may keep an untouched pod only as
 * compressed bytes (client/cold-objects.ts), which is a saving only when nothing else holds the
 * decoded pod (bench/RESULTS.md `mem7-2026-12-06`, `mem8-2026-12-07`).
 *
 * The members kept, and who reads them of an existing pod:
 *  - metadata name, namespace, uid (the cache's key; preemption's victims, their deletion and
 *    event), labels (pod affinity terms, topology spread counts, disruption budgets),
 *    creationTimestamp and deletionTimestamp (preemption's order and its "victims terminating"
 *    check, topology spread skipping terminating pods);
 *  - spec nodeName (the node it counts on), priority (preemption), affinity (pod affinity and
 *    anti-affinity terms of existing pods), volumes, only those naming a claim or a shared disk
 *    (VolumeRestrictions: ReadWriteOncePod claims in use, disks mounted twice);
 *  - status startTime (preemption's order).
 * Every string and subtree is the informer object's own (shared among alike pods), not a copy;
 * every cached pod is one instance of one class (one hidden class, absent members undefined).
 */
import type { Affinity, Container, Pod, PodSpec, PodStatus, Volume } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { PodResources } from './nodeinfo.js';

/** Where a cached pod carries what it counts (NodeInfo's podResources reads it first). */
export const countedResources = Symbol('countedResources');

export interface CachedPod extends Pod { readonly [countedResources]: PodResources }

export function isCachedPod(pod: Pod): pod is CachedPod {
  return (pod as Partial<CachedPod>)[countedResources] !== undefined;
}

/** spec.containers is required by the type; a cached pod's plugins read its counted resources instead. */
const noContainers = Object.freeze([]) as unknown as Container[];

/** The volumes VolumeRestrictions compares: claims and shared disks; undefined for the many pods with none. */
function restrictedVolumes(volumes: readonly Volume[] | undefined): Volume[] | undefined {
  let out: Volume[] | undefined;
  for (const v of volumes ?? []) if (v.persistentVolumeClaim || v.gcePersistentDisk || v.awsElasticBlockStore || v.rbd || v.iscsi) (out ??= []).push(v);
  return out;
}

/**
 * One object a pod: its members are the object's own fields, and `metadata`, `spec` and `status`
 * (getters on the prototype, no memory a pod) answer the object itself, so `pod.metadata.labels`
 * and `pod.spec.nodeName` read as from a Pod. Four objects a pod (the pod, its metadata, spec and
 * status) were ~216 bytes a pod, this one 112 (bench/RESULTS.md `mem12-2026-12-07`). kind and
 * apiVersion are known, so an event about a cached pod (a preemption's victim) takes it as it is
 * (events.ts asPod): a copy of it (Object.assign, a spread) would have its fields, not a pod's shape.
 */
class FlatCachedPod implements CachedPod {
  readonly [countedResources]: PodResources;

  constructor(
    readonly name: string | undefined,
    readonly namespace: string | undefined,
    readonly uid: string | undefined,
    readonly labels: Record<string, string> | undefined,
    readonly creationTimestamp: string | undefined,
    readonly deletionTimestamp: string | undefined,
    readonly nodeName: string,
    readonly priority: number | undefined,
    readonly affinity: Affinity | undefined,
    readonly volumes: Volume[] | undefined,
    readonly startTime: string | undefined,
    resources: PodResources,
  ) {
    this[countedResources] = resources;
  }

  get kind(): 'Pod' { return 'Pod'; }
  get apiVersion(): 'v1' { return 'v1'; }
  get metadata(): ObjectMeta { return this; }
  get spec(): PodSpec { return this; }
  get status(): PodStatus { return this; }
  get containers(): Container[] { return noContainers; }
}

/** The cached form of `pod` counted on `nodeName` with `resources` (podResources of the pod). */
export function cachedPod(pod: Pod, nodeName: string, resources: PodResources): CachedPod {
  const m = pod.metadata ?? {};
  const spec = pod.spec;
  return new FlatCachedPod(
    m.name, m.namespace, m.uid, m.labels, m.creationTimestamp, m.deletionTimestamp,
    nodeName, spec?.priority, spec?.affinity, restrictedVolumes(spec?.volumes), pod.status?.startTime, resources,
  );
}
