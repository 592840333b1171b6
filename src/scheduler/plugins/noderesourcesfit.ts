/**
 * NodeResourcesFit (upstream `plugins/noderesources/fit.go`, with the
 * default LeastAllocated scoring strategy):
 *  - Filter (fitsRequest), every failing check is a reason, in this order:
 *    1. `Too many pods` when the node already holds allocatable pods;
 *    2. a pod requesting nothing fits otherwise;
 *    3. `Insufficient cpu`, `Insufficient memory`, `Insufficient
 *       ephemeral-storage` when the request exceeds allocatable minus the
 *       requests of the pods on the node (assumed ones included);
 *    4. `Insufficient <name>` for extended and other scalar resources.
 *    The status is Unschedulable (preemption might help) as in 1.32.
 *  - Score: LeastAllocated over cpu and memory (weight 1 each) with the
 *    non-zero requests (100m / 200Mi for containers that request nothing):
 *    per resource (allocatable - requested) * 100 / allocatable, 0 when over,
 *    averaged by weight with integer division.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { ResourceAmounts } from '../../api/resource-helpers.js';
import {
  maxNodeScore, stateKey, success, unschedulable, type ClusterEvent, type CycleState, type EnqueueExtensions, type FilterPlugin,
  type NodeBatch, type PreFilterPlugin, type PreFilterResult, type PreScorePlugin, type ScorePlugin, type Status,
} from '../framework.js';
import { Hot, hotFields, NodeInfo, podResources, type PodResources } from '../nodeinfo.js';

export const nodeResourcesFitName = 'NodeResourcesFit';

const preFilterKey = stateKey<PodResources>('PreFilterNodeResourcesFit');

export interface InsufficientResource { resourceName: string; reason: string; requested: number; used: number; capacity: number }

const tooManyPods = (node: NodeInfo): InsufficientResource =>
  ({ resourceName: 'pods', reason: 'Too many pods', requested: 1, used: node.pods.size, capacity: node.allocatable.pods });

/** fitsRequest: the reasons of the file comment, in order. */
export function fitsRequest(req: ResourceAmounts, node: NodeInfo): InsufficientResource[] {
  const out: InsufficientResource[] = [];
  if (node.pods.size + 1 > node.allocatable.pods) out.push(tooManyPods(node)); // 1
  if (req.milliCPU === 0 && req.memory === 0 && req.ephemeralStorage === 0 && req.scalar.size === 0) return out; // 2
  const a = node.allocatable;
  const u = node.requested;
  const check = (name: string, want: number, alloc: number, used: number) => {
    if (want > 0 && want > alloc - used) out.push({ resourceName: name, reason: `Insufficient ${name}`, requested: want, used, capacity: alloc });
  };
  check('cpu', req.milliCPU, a.milliCPU, u.milliCPU); // 3
  check('memory', req.memory, a.memory, u.memory);
  check('ephemeral-storage', req.ephemeralStorage, a.ephemeralStorage, u.ephemeralStorage);
  for (const [name, want] of req.scalar) { // 4
    if (want === 0) continue;
    if (want > (a.scalar.get(name) ?? 0) - (u.scalar.get(name) ?? 0)) {
      out.push({ resourceName: name, reason: `Insufficient ${name}`, requested: want, used: u.scalar.get(name) ?? 0, capacity: a.scalar.get(name) ?? 0 });
    }
  }
  return out;
}

/** leastRequestedScore: the free share of one resource, 0..100. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * maxNodeScore) / capacity);
}

/** leastResourceScorer with weight 1 for cpu and memory. */
export function leastAllocatedScore(requested: readonly number[], allocatable: readonly number[]): number {
  let score = 0;
  let weights = 0;
  for (let i = 0; i < requested.length; i++) {
    if (allocatable[i] === 0) continue;
    score += leastRequestedScore(requested[i], allocatable[i]);
    weights += 1;
  }
  return weights === 0 ? 0 : Math.trunc(score / weights);
}

/** Room on the node's Hot row for one more pod and for the cpu and memory asked (the whole check when nothing else is asked). */
function fitsOnRow(req: ResourceAmounts, data: Float64Array, row: number): boolean {
  return data[row + Hot.PodCount] < data[row + Hot.AllocPods]
    && req.milliCPU <= data[row + Hot.AllocMilliCPU] - data[row + Hot.ReqMilliCPU]
    && req.memory <= data[row + Hot.AllocMemory] - data[row + Hot.ReqMemory];
}

/** The filter; `data[row + field]` are the node's Hot fields. */
function fitFilter(req: ResourceAmounts, node: NodeInfo, data: Float64Array, row: number): Status {
  // Fast path on the Hot row: room for one more pod and for the cpu and memory asked, nothing else asked.
  if (req.ephemeralStorage === 0 && req.scalar.size === 0 && fitsOnRow(req, data, row)) return success;
  const insufficient = fitsRequest(req, node);
  return insufficient.length ? unschedulable(...insufficient.map((r) => r.reason)) : success;
}

/** leastAllocatedScore([cpu, memory] requested with the pod, [cpu, memory] allocatable) without the arrays (hot path). */
function leastAllocatedNodeScore(data: Float64Array, row: number, podCPU: number, podMemory: number): number {
  const allocCPU = data[row + Hot.AllocMilliCPU];
  const allocMem = data[row + Hot.AllocMemory];
  const cpu = data[row + Hot.NonZeroMilliCPU] + podCPU;
  const mem = data[row + Hot.NonZeroMemory] + podMemory;
  if (allocCPU === 0) return allocMem === 0 ? 0 : leastRequestedScore(mem, allocMem);
  if (allocMem === 0) return leastRequestedScore(cpu, allocCPU);
  return Math.trunc((leastRequestedScore(cpu, allocCPU) + leastRequestedScore(mem, allocMem)) / 2);
}

/** isFit: whether the pod fits the node when it is empty. */
function fitsEmptyNode(pod: Pod, node: Node): boolean {
  const info = new NodeInfo(node?.metadata?.name ?? '');
  info.setNode(node);
  return fitsRequest(podResources(pod).requests, info).length === 0;
}

/** haveAnyRequestedResourcesIncreased. */
function requestedResourcesIncreased(pod: Pod, oldNode: Node, newNode: Node): boolean {
  const before = new NodeInfo('');
  before.setNode(oldNode);
  const after = new NodeInfo('');
  after.setNode(newNode);
  const a = before.allocatable;
  const b = after.allocatable;
  if (b.pods > a.pods) return true;
  const req = podResources(pod).requests;
  if ((req.milliCPU > 0 && b.milliCPU > a.milliCPU) || (req.memory > 0 && b.memory > a.memory)
    || (req.ephemeralStorage > 0 && b.ephemeralStorage > a.ephemeralStorage)) return true;
  for (const [name, want] of req.scalar) if (want > 0 && (b.scalar.get(name) ?? 0) > (a.scalar.get(name) ?? 0)) return true;
  return false;
}

function requestsDecreased(oldPod: Pod, newPod: Pod): boolean {
  const a = podResources(oldPod).requests;
  const b = podResources(newPod).requests;
  if (b.milliCPU < a.milliCPU || b.memory < a.memory || b.ephemeralStorage < a.ephemeralStorage) return true;
  for (const [name, v] of a.scalar) if ((b.scalar.get(name) ?? 0) < v) return true;
  return false;
}

export class NodeResourcesFit implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = nodeResourcesFitName;
  readonly events = ['NodeAdd', 'NodeUpdate', 'AssignedPodDelete', 'UnscheduledPodUpdate'] as const;

  preFilter(state: CycleState, pod: Pod): { status: Status; result?: PreFilterResult } {
    state.write(preFilterKey, podResources(pod));
    return { status: success };
  }

  filter(state: CycleState, pod: Pod, node: NodeInfo): Status {
    return fitFilter((state.read(preFilterKey) ?? podResources(pod)).requests, node, node.table.data, node.slot * hotFields);
  }

  filterNodes(state: CycleState, pod: Pod, { nodes, slots, data, count }: NodeBatch, out: Status[]): number {
    const req = (state.read(preFilterKey) ?? podResources(pod)).requests;
    let first = 0;
    if (req.ephemeralStorage === 0 && req.scalar.size === 0) {
      while (first < count && fitsOnRow(req, data, slots[first] * hotFields)) first++;
      if (first === count) return 0;
    }
    let rejectedCount = 0;
    for (let i = 0; i < count; i++) {
      const s = i < first ? success : fitFilter(req, nodes[i], data, slots[i] * hotFields);
      out[i] = s;
      if (s.code !== 'Success') rejectedCount++;
    }
    return rejectedCount;
  }

  preScore(state: CycleState, pod: Pod): Status {
    state.write(preFilterKey, podResources(pod));
    return success;
  }

  score(state: CycleState, pod: Pod, node: NodeInfo): number {
    const nz = (state.read(preFilterKey) ?? podResources(pod)).nonZero;
    return leastAllocatedNodeScore(node.table.data, node.slot * hotFields, nz.milliCPU, nz.memory);
  }

  scoreNodes(state: CycleState, pod: Pod, { slots, data, count }: NodeBatch, out: Float64Array): void {
    const nz = (state.read(preFilterKey) ?? podResources(pod)).nonZero;
    for (let i = 0; i < count; i++) out[i] = leastAllocatedNodeScore(data, slots[i] * hotFields, nz.milliCPU, nz.memory);
  }

  /** A deleted pod frees resources; a node that the pod fits when empty and that grew; the pod asking for less. */
  queueingHint(event: ClusterEvent, pod: Pod): 'Queue' | 'QueueSkip' {
    switch (event.type) {
      case 'AssignedPodDelete': return 'Queue';
      case 'NodeAdd': return fitsEmptyNode(pod, event.node) ? 'Queue' : 'QueueSkip';
      case 'NodeUpdate':
        return fitsEmptyNode(pod, event.newNode) && requestedResourcesIncreased(pod, event.oldNode, event.newNode) ? 'Queue' : 'QueueSkip';
      case 'UnscheduledPodUpdate': return requestsDecreased(event.oldPod, event.newPod) ? 'Queue' : 'QueueSkip';
      default: return 'QueueSkip';
    }
  }
}
