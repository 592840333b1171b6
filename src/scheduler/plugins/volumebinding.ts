/**
 * VolumeBinding (upstream `plugins/volumebinding`): a pod's claims must be
 * usable on the node — bound volumes' node affinity must admit it, and
 * WaitForFirstConsumer claims must be provisionable there. After the node is
 * chosen, PreBind records the node on each unbound WaitForFirstConsumer claim
 * (annotation volume.kubernetes.io/selected-node) so the provisioner creates
 * the volume there, and binds pre-provisioned volumes to their claims.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import {
  skip, stateKey, success, unresolvable, unschedulable, type CycleState, type FilterPlugin, type PreFilterPlugin,
  type PreFilterResult, type Status,
} from '../framework.js';
import type { NodeInfo } from '../nodeinfo.js';
import {
  findPodVolumes, getPodVolumeClaims, podVolumeBindingsForNode, selectedNodePatch, volumeBoundToClaim,
  type ClaimLookup, type ClassLookup, type VolumeIndex, type PodVolumeClaims,
} from '../../api/volumebinding.js';
import type { Clientset } from '../../client/index.js';

export const volumeBindingName = 'VolumeBinding';

export interface VolumeListers { pvcs: ClaimLookup; pvs: VolumeIndex; classes: ClassLookup }

const claimsKey = stateKey<PodVolumeClaims>('PreFilterVolumeBinding');

export class VolumeBinding implements PreFilterPlugin, FilterPlugin {
  readonly name = volumeBindingName;

  constructor(private readonly listers: VolumeListers) {}

  preFilter(state: CycleState, pod: Pod): { status: Status; result?: PreFilterResult } {
    const claims = getPodVolumeClaims(pod, this.listers.pvcs, this.listers.pvs, this.listers.classes);
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

  /** PreBind: write the volume decisions for the chosen node before the pod is bound. */
  async preBind(clients: Clientset, pod: Pod, node: Node): Promise<void> {
    if (!this.needsPreBind(pod)) return;
    const plan = podVolumeBindingsForNode(pod, node, this.listers.pvcs, this.listers.pvs, this.listers.classes);
    for (const { pv, pvc } of plan.staticBindings) {
      const updated = volumeBoundToClaim(pv, pvc);
      if (updated) await clients.resource('persistentvolumes').update(updated);
    }
    for (const pvc of plan.dynamicProvisions) {
      await clients.resource('persistentvolumeclaims').patch(pvc.metadata!.namespace!, pvc.metadata!.name!, selectedNodePatch(node.metadata!.name!));
    }
  }
}
