/**
 * VolumeBinding (upstream `plugins/volumebinding`): a pod's claims must be
 * usable on the node — bound volumes' node affinity must admit it, and
 * WaitForFirstConsumer claims must be provisionable there. Once the node is
 * chosen, Reserve assumes the decisions in the scheduler's own view of claims
 * and volumes (volume-assume.ts), so the next pods see them at once; PreBind
 * then writes them: the node on each unbound WaitForFirstConsumer claim
 * (annotation volume.kubernetes.io/selected-node), so the provisioner creates
 * the volume there, and pre-provisioned volumes bound to their claims.
 * Unreserve (a failed PreBind or binding) drops what Reserve assumed.
 */
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import {
  skip, stateKey, success, unresolvable, unschedulable, type CycleState, type FilterPlugin, type PreFilterPlugin,
  type PreFilterResult, type Status,
} from '../framework.js';
import type { NodeInfo } from '../nodeinfo.js';
import {
  annSelectedNode, claimKey, findPodVolumes, getPodVolumeClaims, podVolumeBindingsForNode, selectedNodePatch, volumeBoundToClaim,
  type ClassLookup, type ObjectIndex, type PodVolumeClaims, type PodVolumes, type VolumeIndex,
} from '../../api/volumebinding.js';
import { AssumeCache } from './volume-assume.js';
import type { Clientset } from '../../client/index.js';

export const volumeBindingName = 'VolumeBinding';

const podKey = (pod: Pod) => `${pod.metadata!.namespace}/${pod.metadata!.name}`;

export interface VolumeListers { pvcs: ObjectIndex<PersistentVolumeClaim>; pvs: VolumeIndex; classes: ClassLookup }

const claimsKey = stateKey<PodVolumeClaims>('PreFilterVolumeBinding');

export class VolumeBinding implements PreFilterPlugin, FilterPlugin {
  readonly name = volumeBindingName;

  private readonly pvcs: AssumeCache<PersistentVolumeClaim>;
  private readonly pvs: AssumeCache<PersistentVolume>;
  private readonly classes: ClassLookup;
  /** Reserve's plan for each pod (by `namespace/name`) until PreBind writes it or Unreserve drops it. */
  private readonly reserved = new Map<string, PodVolumes>();

  constructor(listers: VolumeListers) {
    this.pvcs = new AssumeCache(listers.pvcs, claimKey);
    this.pvs = new AssumeCache(listers.pvs, (pv) => pv.metadata!.name!);
    this.classes = listers.classes;
  }

  preFilter(state: CycleState, pod: Pod): { status: Status; result?: PreFilterResult } {
    const claims = getPodVolumeClaims(pod, this.pvcs, this.pvs, this.classes);
    if (!claims) return { status: skip };
    if ('ok' in claims) return { status: claims.code === 'Error' ? unschedulable(claims.reason) : unresolvable(claims.reason) };
    state.write(claimsKey, claims);
    return { status: success };
  }

  filter(state: CycleState, _pod: Pod, node: NodeInfo): Status {
    const claims = state.read(claimsKey);
    if (!claims || !node.node) return success;
    const r = findPodVolumes(claims, node.node);
    return r.ok ? success : unresolvable(...r.reasons);
  }

  /** Whether preBind has something to write for the pod: it names a claim (upstream's PreBind skips a pod without one). */
  needsPreBind(pod: Pod): boolean { return !!pod.spec?.volumes?.some((v) => v.persistentVolumeClaim); }

  /** Reserve (AssumePodVolumes): the decisions for `node`, assumed at once; called in the scheduling cycle that chose it. */
  reserve(pod: Pod, node: Node): void {
    const plan = podVolumeBindingsForNode(pod, node, this.pvcs, this.pvs, this.classes);
    this.reserved.set(podKey(pod), plan);
    for (const { pv, pvc } of plan.staticBindings) {
      const bound = volumeBoundToClaim(pv, pvc);
      if (bound) this.pvs.assume(bound);
    }
    for (const pvc of plan.dynamicProvisions) {
      this.pvcs.assume({ ...pvc, metadata: { ...pvc.metadata, annotations: { ...pvc.metadata?.annotations, [annSelectedNode]: node.metadata!.name! } } });
    }
  }

  /** Unreserve (RevertAssumedPodVolumes): the pod was not bound; what Reserve assumed goes. */
  unreserve(pod: Pod): void {
    const plan = this.reserved.get(podKey(pod));
    this.reserved.delete(podKey(pod));
    for (const { pv } of plan?.staticBindings ?? []) this.pvs.restore(pv.metadata!.name!);
    for (const pvc of plan?.dynamicProvisions ?? []) this.pvcs.restore(claimKey(pvc));
  }

  /** PreBind: write Reserve's volume decisions for the chosen node before the pod is bound. */
  async preBind(clients: Clientset, pod: Pod, nodeName: string): Promise<void> {
    const plan = this.reserved.get(podKey(pod));
    if (!plan) return;
    for (const { pv, pvc } of plan.staticBindings) {
      const updated = volumeBoundToClaim(pv, pvc);
      if (updated) await clients.resource('persistentvolumes').update(updated);
    }
    for (const pvc of plan.dynamicProvisions) {
      await clients.resource('persistentvolumeclaims').patch(pvc.metadata!.namespace!, pvc.metadata!.name!, selectedNodePatch(nodeName));
    }
    // Written: the informer brings the objects back; a failure before here leaves the plan to Unreserve.
    this.reserved.delete(podKey(pod));
  }
}
