/**
 * NodeName (upstream `plugins/nodename`): a pod that names a node
 * (spec.nodeName) fits only that node.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  success, unresolvable, type ClusterEvent, type CycleState, type EnqueueExtensions, type FilterPlugin, type NodeBatch, type Status,
} from '../framework.js';
import type { NodeInfo } from '../nodeinfo.js';

export const nodeNameName = 'NodeName';
export const errReasonNodeName = "node(s) didn't match the requested node name";

const rejected = unresolvable(errReasonNodeName);

/** nodename.Fits. */
export const nodeNameFits = (pod: Pod, nodeName: string | undefined) => !pod?.spec?.nodeName || pod.spec.nodeName === nodeName;

export class NodeName implements FilterPlugin, EnqueueExtensions {
  readonly name = nodeNameName;
  readonly events = ['NodeAdd'] as const;

  filter(_state: CycleState, pod: Pod, node: NodeInfo): Status {
    return nodeNameFits(pod, node.name) ? success : rejected;
  }

  filterNodes(_state: CycleState, pod: Pod, { nodes, count }: NodeBatch, out: Status[]): number {
    const want = pod?.spec?.nodeName;
    if (!want) return 0;
    let rejectedCount = 0;
    for (let i = 0; i < count; i++) {
      const fits = want === nodes[i].name;
      out[i] = fits ? success : rejected;
      if (!fits) rejectedCount++;
    }
    return rejectedCount;
  }

  queueingHint(event: ClusterEvent, pod: Pod): 'Queue' | 'QueueSkip' {
    return event.type === 'NodeAdd' && nodeNameFits(pod, event.node?.metadata?.name) ? 'Queue' : 'QueueSkip';
  }
}
