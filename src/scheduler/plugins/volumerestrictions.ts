/**
 * VolumeRestrictions (upstream `plugins/volumerestrictions`): volumes a pod
 * may not share with the pods already placed.
 *  1. A claim named by a persistentVolumeClaim volume must exist
 *     (UnschedulableAndUnresolvable, `persistentvolumeclaim "NAME" not found`).
 *  2. ReadWriteOncePod: a claim with that access mode serves one pod in the
 *     whole cluster. PreFilter counts, node by node, the placed pods that use
 *     the pod's ReadWriteOncePod claims; while any does, Filter rejects every
 *     node as Unschedulable (preemption may evict the holder: the node being
 *     checked is counted from the NodeInfo Filter is given, which preemption's
 *     dry run hands with its victims removed, as upstream's RemovePod).
 *  3. Disks (satisfyVolumeConflicts): a node whose pods mount the same GCE PD
 *     or iSCSI target (unless both mounts are read-only), the same AWS EBS
 *     volume, or the same RBD image of an overlapping Ceph monitor and pool
 *     (unless both read-only) is Unschedulable.
 */
import type { Pod, PersistentVolumeClaim, Volume } from 'kubernetes-types/core/v1.js';
import {
  skip, stateKey, success, unresolvable, unschedulable, type AllNodes, type CycleState, type FilterPlugin, type PreFilterPlugin,
  type PreFilterResult, type Status,
} from '../framework.js';
import type { NodeInfo } from '../nodeinfo.js';

export const volumeRestrictionsName = 'VolumeRestrictions';
export const errReasonDiskConflict = 'node(s) had no available disk';
export const errReasonReadWriteOncePodConflict = 'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode';

/** Claims by `namespace/name` (the scheduler's claim informer). */
export interface ClaimGetter { get(key: string): PersistentVolumeClaim | undefined }

interface PreFilterState {
  /** The pod's ReadWriteOncePod claims, `namespace/name`. */
  readonly claims: ReadonlySet<string>;
  /** Placed pods using them, in the whole snapshot and on each node that has some. */
  readonly total: number;
  readonly perNode: ReadonlyMap<string, number>;
}

const stateKeyRWOP = stateKey<PreFilterState>('PreFilterVolumeRestrictions');
const diskConflict = unschedulable(errReasonDiskConflict);
const rwopConflict = unschedulable(errReasonReadWriteOncePodConflict);

/** needsRestrictionsCheck: the volume kinds rule 3 compares. */
const isDisk = (v: Volume) => !!(v.gcePersistentDisk || v.awsElasticBlockStore || v.rbd || v.iscsi);

/** How many of `node`'s pods use one of `claims` (a pod counts once per volume naming one, as upstream's PVCRefCounts). */
function claimUsers(node: NodeInfo, claims: ReadonlySet<string>): number {
  let n = 0;
  for (const pod of node.pods.values() as Iterable<Pod>) {
    for (const v of pod.spec?.volumes ?? []) {
      if (v.persistentVolumeClaim && claims.has(`${pod.metadata?.namespace}/${v.persistentVolumeClaim.claimName}`)) n++;
    }
  }
  return n;
}

/** isVolumeConflict: whether `v` may not be mounted beside the volumes of `existing`. */
export function isVolumeConflict(v: Volume, existing: Pod): boolean {
  for (const e of existing.spec?.volumes ?? []) {
    if (v.gcePersistentDisk && e.gcePersistentDisk && v.gcePersistentDisk.pdName === e.gcePersistentDisk.pdName
      && !(v.gcePersistentDisk.readOnly && e.gcePersistentDisk.readOnly)) return true;
    if (v.awsElasticBlockStore && e.awsElasticBlockStore && v.awsElasticBlockStore.volumeID === e.awsElasticBlockStore.volumeID) return true;
    if (v.iscsi && e.iscsi && v.iscsi.iqn === e.iscsi.iqn && !(v.iscsi.readOnly && e.iscsi.readOnly)) return true;
    if (v.rbd && e.rbd) {
      const sameMonitor = v.rbd.monitors.some((m) => e.rbd!.monitors.includes(m));
      if (sameMonitor && v.rbd.pool === e.rbd.pool && v.rbd.image === e.rbd.image && !(v.rbd.readOnly && e.rbd.readOnly)) return true;
    }
  }
  return false;
}

export class VolumeRestrictions implements PreFilterPlugin, FilterPlugin {
  readonly name = volumeRestrictionsName;

  constructor(private readonly claims: ClaimGetter) {}

  preFilter(state: CycleState, pod: Pod, nodes: AllNodes): { status: Status; result?: PreFilterResult } {
    const volumes = pod.spec?.volumes ?? [];
    const rwop = new Set<string>();
    for (const v of volumes) {
      if (!v.persistentVolumeClaim) continue;
      const key = `${pod.metadata?.namespace}/${v.persistentVolumeClaim.claimName}`;
      const pvc = this.claims.get(key);
      if (!pvc) return { status: unresolvable(`persistentvolumeclaim "${v.persistentVolumeClaim.claimName}" not found`) };
      if (pvc.spec?.accessModes?.includes('ReadWriteOncePod')) rwop.add(key);
    }
    let total = 0;
    const perNode = new Map<string, number>();
    if (rwop.size) {
      for (const node of nodes.list) {
        const n = claimUsers(node, rwop);
        if (n) { perNode.set(node.name, n); total += n; }
      }
    }
    if (!volumes.some(isDisk) && total === 0) return { status: skip };
    state.write(stateKeyRWOP, { claims: rwop, total, perNode });
    return { status: success };
  }

  filter(state: CycleState, pod: Pod, node: NodeInfo): Status {
    for (const v of pod.spec?.volumes ?? []) {
      if (!isDisk(v)) continue;
      for (const existing of node.pods.values() as Iterable<Pod>) if (isVolumeConflict(v, existing)) return diskConflict;
    }
    const s = state.read(stateKeyRWOP);
    if (!s || s.total === 0) return success;
    // The snapshot's count with this node's share taken from the NodeInfo at hand (preemption's copy lacks its victims).
    const elsewhere = s.total - (s.perNode.get(node.name) ?? 0);
    return elsewhere + claimUsers(node, s.claims) > 0 ? rwopConflict : success;
  }
}
