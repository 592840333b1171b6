/**
 * DefaultPreemption's diagnosis (upstream `plugins/defaultpreemption` and
 * `framework/preemption`), as PostFilter: when no node fits,
 *  1. a pod with preemptionPolicy Never is not eligible;
 *  2. nodes whose rejection was UnschedulableAndUnresolvable are not
 *     candidates ("Preemption is not helpful for scheduling");
 *  3. on the others (dry run) the pods of lower priority are the possible
 *     victims: none means "No preemption victims found for incoming pod";
 *     else the pod is filtered again as if they were gone, and a rejection
 *     then is that node's reason;
 *  4. without candidates the result is `preemption: ` plus a FitError message
 *     over those statuses.
 * k8ts does not evict victims: when a dry run finds candidates the message is
 * left out (as upstream's is after a successful preemption) and nothing is
 * preempted.
 */
import { fitErrorMessage } from '../fiterror.js';
import {
  isRejected, success, unresolvable, unschedulable, type Diagnosis, type NodeStatus, type PostFilterPlugin, type Status,
} from '../framework.js';
import type { NodeInfo } from '../nodeinfo.js';

export const defaultPreemptionName = 'DefaultPreemption';
export const notHelpfulReason = 'Preemption is not helpful for scheduling';
export const noVictimsReason = 'No preemption victims found for incoming pod';
export const preemptNeverMessage = 'not eligible due to preemptionPolicy=Never.';

/** corev1helpers.PodPriority. */
export const podPriority = (pod: any): number => pod?.spec?.priority ?? 0;

const notHelpful: NodeStatus = { status: unresolvable(notHelpfulReason), plugin: defaultPreemptionName };
const noVictims: NodeStatus = { status: unresolvable(noVictimsReason), plugin: defaultPreemptionName };

export class DefaultPreemption implements PostFilterPlugin {
  readonly name = defaultPreemptionName;

  postFilter(pod: any, diagnosis: Diagnosis, allNodes: readonly NodeInfo[], filters: (pod: any, node: NodeInfo) => Status): Status {
    if (pod?.spec?.preemptionPolicy === 'Never') return unschedulable(`preemption: ${preemptNeverMessage}`); // 1
    const statuses = new Map<string, NodeStatus>();
    let candidates = 0;
    for (const node of allNodes) {
      const st = diagnosis.nodeToStatus.get(node.name) ?? diagnosis.absentNodesStatus;
      if (st?.status.code !== 'Unschedulable') continue; // 2
      const result = this.dryRun(pod, node, filters); // 3
      if (result) statuses.set(node.name, result); else candidates++;
    }
    if (candidates > 0) return success;
    return unschedulable(`preemption: ${fitErrorMessage(allNodes.length, { nodeToStatus: statuses, absentNodesStatus: notHelpful })}`); // 4
  }

  /** SelectVictimsOnNode, reduced to the verdict: undefined when removing the victims lets the pod fit. */
  private dryRun(pod: any, node: NodeInfo, filters: (pod: any, node: NodeInfo) => Status): NodeStatus | undefined {
    const priority = podPriority(pod);
    const victims = [...node.pods].filter(([, p]) => podPriority(p) < priority).map(([k]) => k);
    if (victims.length === 0) return noVictims;
    const copy = node.clone();
    for (const k of victims) copy.removePod(k);
    const s = filters(pod, copy);
    if (isRejected(s)) return { status: s, plugin: defaultPreemptionName };
    return undefined;
  }
}
