/**
 * NodeUnschedulable (upstream `plugins/nodeunschedulable`): a cordoned node
 * (spec.unschedulable) rejects the pod unless the pod tolerates the taint
 * node.kubernetes.io/unschedulable:NoSchedule, which stands for the flag.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { tolerationsTolerateTaint, type Taint } from '../../api/tolerations.js';
import {
  success, unresolvable, type ClusterEvent, type CycleState, type EnqueueExtensions, type FilterPlugin, type NodeBatch, type Status,
} from '../framework.js';
import { Hot, hotFields, type NodeInfo } from '../nodeinfo.js';

export const nodeUnschedulableName = 'NodeUnschedulable';
export const errReasonUnschedulable = 'node(s) were unschedulable';
export const taintNodeUnschedulable: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

const rejected = unresolvable(errReasonUnschedulable);

const toleratesUnschedulable = (pod: Pod) => tolerationsTolerateTaint(pod?.spec?.tolerations, taintNodeUnschedulable);

export class NodeUnschedulable implements FilterPlugin, EnqueueExtensions {
  readonly name = nodeUnschedulableName;
  readonly events = ['NodeAdd', 'NodeUpdate', 'UnscheduledPodUpdate'] as const;

  filter(_state: CycleState, pod: Pod, node: NodeInfo): Status {
    if (!node.unschedulable) return success;
    return toleratesUnschedulable(pod) ? success : rejected;
  }

  filterNodes(_state: CycleState, pod: Pod, { slots, data, count }: NodeBatch, out: Status[]): number {
    let first = 0;
    while (first < count && data[slots[first] * hotFields + Hot.Unschedulable] === 0) first++;
    if (first === count || toleratesUnschedulable(pod)) return 0; // no cordoned node, or the pod tolerates the flag
    let rejectedCount = 0;
    for (let i = 0; i < count; i++) {
      const cordoned = data[slots[i] * hotFields + Hot.Unschedulable] !== 0;
      out[i] = cordoned ? rejected : success;
      if (cordoned) rejectedCount++;
    }
    return rejectedCount;
  }

  /** A node that becomes (or is added) schedulable, or the pod newly tolerating the flag. */
  queueingHint(event: ClusterEvent, pod: Pod): 'Queue' | 'QueueSkip' {
    switch (event.type) {
      case 'NodeAdd': return !event.node?.spec?.unschedulable ? 'Queue' : 'QueueSkip';
      case 'NodeUpdate': return event.oldNode?.spec?.unschedulable && !event.newNode?.spec?.unschedulable ? 'Queue' : 'QueueSkip';
      case 'UnscheduledPodUpdate': return !toleratesUnschedulable(event.oldPod) && toleratesUnschedulable(pod) ? 'Queue' : 'QueueSkip';
      default: return 'QueueSkip';
    }
  }
}
