/**
 * NodePorts (upstream `plugins/nodeports`): a pod asking for host ports
 * fits a node only where none of them is in use for the same protocol on the
 * same host IP or on 0.0.0.0 (and 0.0.0.0 clashes with every IP).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  skip, stateKey, success, unschedulable, type ClusterEvent, type CycleState, type EnqueueExtensions, type FilterPlugin,
  type PreFilterPlugin, type PreFilterResult, type Status,
} from '../framework.js';
import { podHostPorts, HostPortInfo, type HostPort, type NodeInfo } from '../nodeinfo.js';

export const nodePortsName = 'NodePorts';
export const errReasonNodePorts = "node(s) didn't have free ports for the requested pod ports";

const rejected = unschedulable(errReasonNodePorts);
const preFilterKey = stateKey<HostPort[]>('PreFilterNodePorts');

/** fitsPorts: none of the wanted ports conflicts with the ones in use. */
export function fitsPorts(wanted: readonly HostPort[], used: HostPortInfo): boolean {
  return wanted.every((p) => !used.checkConflict(p.hostIP, p.protocol, p.port));
}

export class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = nodePortsName;
  readonly events = ['NodeAdd', 'AssignedPodDelete'] as const;

  preFilter(state: CycleState, pod: Pod): { status: Status; result?: PreFilterResult } {
    const wanted = podHostPorts(pod?.spec);
    if (wanted.length === 0) return { status: skip };
    state.write(preFilterKey, wanted);
    return { status: success };
  }

  filter(state: CycleState, pod: Pod, node: NodeInfo): Status {
    const wanted = state.read(preFilterKey) ?? podHostPorts(pod?.spec);
    return fitsPorts(wanted, node.usedPorts) ? success : rejected;
  }

  /** A new node, or a deleted pod that held one of the ports the pod wants. */
  queueingHint(event: ClusterEvent, pod: Pod): 'Queue' | 'QueueSkip' {
    if (event.type === 'NodeAdd') return 'Queue';
    if (event.type !== 'AssignedPodDelete') return 'QueueSkip';
    const freed = new HostPortInfo();
    for (const p of podHostPorts(event.pod?.spec)) freed.add(p.hostIP, p.protocol, p.port);
    return fitsPorts(podHostPorts(pod?.spec), freed) ? 'QueueSkip' : 'Queue';
  }
}
