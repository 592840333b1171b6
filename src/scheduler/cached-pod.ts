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
 * the shape is fixed (absent members are undefined) so V8 gives every cached pod one hidden class.
 */
import type { Container, Pod, Volume } from 'kubernetes-types/core/v1.js';
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

/** The cached form of `pod` counted on `nodeName` with `resources` (podResources of the pod). */
export function cachedPod(pod: Pod, nodeName: string, resources: PodResources): CachedPod {
  const m = pod.metadata ?? {};
  const spec = pod.spec;
  return {
    metadata: {
      name: m.name, namespace: m.namespace, uid: m.uid, labels: m.labels,
      creationTimestamp: m.creationTimestamp, deletionTimestamp: m.deletionTimestamp,
    },
    spec: { containers: noContainers, nodeName, priority: spec?.priority, affinity: spec?.affinity, volumes: restrictedVolumes(spec?.volumes) },
    status: { startTime: pod.status?.startTime },
    [countedResources]: resources,
  };
}

