/**
 * DefaultPreemption (upstream `plugins/defaultpreemption` and
 * `framework/preemption`), as PostFilter: when no node fits,
 *  1. a pod with preemptionPolicy Never is not eligible, nor one already
 *     nominated to a node where a lower-priority pod is still terminating
 *     (its earlier preemption is under way);
 *  2. nodes whose rejection was UnschedulableAndUnresolvable are not
 *     candidates ("Preemption is not helpful for scheduling");
 *  3. on the others the victims are selected (preemption-victims.ts): none
 *     possible means "No preemption victims found for incoming pod"; a node
 *     where the pod still does not fit gives that rejection;
 *  4. without candidates the result is `preemption: ` plus a FitError
 *     message over those statuses; with candidates the best node is picked
 *     and returned as the nomination, with its victims. The scheduler then
 *     marks the victims DisruptionTarget (PreemptionByScheduler), deletes
 *     them and sets the preemptor's status.nominatedNodeName; the preemptor
 *     waits in the queue until the victims are gone.
 */
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { fitErrorMessage } from '../fiterror.js';
import {
  unresolvable, unschedulable, type Diagnosis, type NodeStatus, type PostFilterPlugin, type PostFilterResult, type Status,
} from '../framework.js';
import type { NodeInfo } from '../nodeinfo.js';
import { pickOneNodeForPreemption, podPriority, selectVictimsOnNode, type Victims } from './preemption-victims.js';

export { podPriority } from './preemption-victims.js';

export const defaultPreemptionName = 'DefaultPreemption';
export const notHelpfulReason = 'Preemption is not helpful for scheduling';
export const noVictimsReason = 'No preemption victims found for incoming pod';
export const preemptNeverMessage = 'not eligible due to preemptionPolicy=Never.';
export const terminatingVictimMessage = 'not eligible due to a terminating pod on the nominated node.';

const notHelpful: NodeStatus = { status: unresolvable(notHelpfulReason), plugin: defaultPreemptionName };
const noVictims: NodeStatus = { status: unresolvable(noVictimsReason), plugin: defaultPreemptionName };

export class DefaultPreemption implements PostFilterPlugin {
  readonly name = defaultPreemptionName;

  /** `pdbs` lists the PodDisruptionBudgets preemption tries not to break. */
  constructor(private readonly pdbs: () => readonly PodDisruptionBudget[] = () => []) {}

  postFilter(pod: Pod, diagnosis: Diagnosis, allNodes: readonly NodeInfo[], filters: (pod: Pod, node: NodeInfo) => Status): PostFilterResult {
    if (pod?.spec?.preemptionPolicy === 'Never') return { status: unschedulable(`preemption: ${preemptNeverMessage}`) }; // 1
    if (this.preemptionUnderWay(pod, allNodes)) return { status: unschedulable(`preemption: ${terminatingVictimMessage}`) };
    const statuses = new Map<string, NodeStatus>();
    const candidates: Victims[] = [];
    const pdbs = this.pdbs();
    for (const node of allNodes) {
      const st = diagnosis.nodeToStatus.get(node.name) ?? diagnosis.absentNodesStatus;
      if (st?.status.code !== 'Unschedulable') continue; // 2
      const r = selectVictimsOnNode(pod, node, filters, pdbs); // 3
      if ('victims' in r) candidates.push(r.victims);
      else statuses.set(node.name, r.noVictims ? noVictims : { status: r.status as NodeStatus['status'], plugin: defaultPreemptionName });
    }
    const best = pickOneNodeForPreemption(candidates); // 4
    if (best) return { status: { code: 'Success' }, nomination: { nodeName: best.node, victims: best.pods } };
    return { status: unschedulable(`preemption: ${fitErrorMessage(allNodes.length, { nodeToStatus: statuses, absentNodesStatus: notHelpful })}`) };
  }

  /** PodEligibleToPreemptOthers: a lower-priority pod still terminating on the node this pod was nominated to. */
  private preemptionUnderWay(pod: Pod, allNodes: readonly NodeInfo[]): boolean {
    const nominated = pod?.status?.nominatedNodeName;
    if (!nominated) return false;
    const node = allNodes.find((n) => n.name === nominated);
    if (!node) return false;
    for (const p of node.pods.values()) if (p.metadata?.deletionTimestamp && podPriority(p) < podPriority(pod)) return true;
    return false;
  }
}
