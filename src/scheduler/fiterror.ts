/**
 * The scheduler's "why not" message (upstream FitError.Error in
 * `pkg/scheduler/framework/types.go`, 1.32):
 *
 *   0/<all nodes> nodes are available: <PreFilter message>.
 * or
 *   0/<all nodes> nodes are available: <n> <reason>, <n> <reason>.
 * followed by " <PostFilter message>" when preemption ran, e.g.
 *   `0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: },
 *    2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling,
 *    2 No preemption victims found for incoming pod.`
 *
 * Each rejected node counts once per reason of its status (a node short of
 * cpu and memory counts under both); nodes PreFilter excluded count under the
 * absent-nodes status; the "<n> <reason>" strings are sorted as strings
 * (Go's sort.Strings), so the count's digits come first.
 */
import type { Diagnosis, NodeStatus } from './framework.js';

export const noNodesAvailableMsg = 'no nodes available to schedule pods';

export interface FitErrorInput {
  readonly nodeToStatus: ReadonlyMap<string, NodeStatus>;
  readonly absentNodesStatus?: NodeStatus;
  readonly preFilterMsg?: string;
  readonly postFilterMsg?: string;
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function fitErrorMessage(numAllNodes: number, d: FitErrorInput | Diagnosis): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (d.preFilterMsg) {
    msg += ` ${d.preFilterMsg}.`;
  } else {
    const counts = new Map<string, number>();
    for (const { status } of d.nodeToStatus.values()) {
      for (const r of status.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
    }
    const absent = numAllNodes - d.nodeToStatus.size;
    if (absent > 0 && d.absentNodesStatus) {
      for (const r of d.absentNodesStatus.status.reasons) counts.set(r, (counts.get(r) ?? 0) + absent);
    }
    const histogram = [...counts].map(([reason, n]) => `${n} ${reason}`).sort(byteOrder);
    if (histogram.length) msg += ` ${histogram.join(', ')}.`;
  }
  if (d.postFilterMsg) msg += ` ${d.postFilterMsg}`;
  return msg;
}
