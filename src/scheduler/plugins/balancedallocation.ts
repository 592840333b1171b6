/**
 * NodeResourcesBalancedAllocation (upstream
 * `plugins/noderesources/balanced_allocation.go`): prefers nodes whose cpu
 * and memory would be used in similar proportions once the pod is on them.
 * With the actual requests (not the non-zero ones) per resource the fraction
 * requested/allocatable (at most 1); the score is (1 - std) * 100 truncated,
 * where for two resources std = |f1 - f2| / 2.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { maxNodeScore, stateKey, success, type CycleState, type NodeBatch, type PreScorePlugin, type ScorePlugin, type Status } from '../framework.js';
import { Hot, hotFields, podResources, type NodeInfo, type PodResources } from '../nodeinfo.js';

export const balancedAllocationName = 'NodeResourcesBalancedAllocation';

/** balancedResourceScorer. */
export function balancedResourceScore(requested: readonly number[], allocatable: readonly number[]): number {
  const fractions: number[] = [];
  let total = 0;
  for (let i = 0; i < requested.length; i++) {
    if (allocatable[i] === 0) continue;
    const f = Math.min(1, requested[i] / allocatable[i]);
    total += f;
    fractions.push(f);
  }
  let std = 0;
  if (fractions.length === 2) {
    std = Math.abs((fractions[0] - fractions[1]) / 2);
  } else if (fractions.length > 2) {
    const mean = total / fractions.length;
    let sum = 0;
    for (const f of fractions) sum += (f - mean) * (f - mean);
    std = Math.sqrt(sum / fractions.length);
  }
  return Math.trunc((1 - std) * maxNodeScore);
}

const preScoreKey = stateKey<PodResources>('PreScoreNodeResourcesBalancedAllocation');

export class BalancedAllocation implements PreScorePlugin, ScorePlugin {
  readonly name = balancedAllocationName;

  preScore(state: CycleState, pod: Pod): Status {
    state.write(preScoreKey, podResources(pod));
    return success;
  }

  score(state: CycleState, pod: Pod, node: NodeInfo): number {
    const req = (state.read(preScoreKey) ?? podResources(pod)).requests;
    return balancedNodeScore(node.table.data, node.slot * hotFields, req.milliCPU, req.memory);
  }

  scoreNodes(state: CycleState, pod: Pod, { slots, data, count }: NodeBatch, out: Float64Array): void {
    const req = (state.read(preScoreKey) ?? podResources(pod)).requests;
    for (let i = 0; i < count; i++) out[i] = balancedNodeScore(data, slots[i] * hotFields, req.milliCPU, req.memory);
  }
}

/** balancedResourceScore over cpu and memory with the pod's requests added; without arrays in the common case (hot path). */
function balancedNodeScore(data: Float64Array, row: number, podCPU: number, podMemory: number): number {
  const allocCPU = data[row + Hot.AllocMilliCPU];
  const allocMem = data[row + Hot.AllocMemory];
  const cpu = data[row + Hot.ReqMilliCPU] + podCPU;
  const mem = data[row + Hot.ReqMemory] + podMemory;
  if (allocCPU === 0 || allocMem === 0) return balancedResourceScore([cpu, mem], [allocCPU, allocMem]);
  const fc = Math.min(1, cpu / allocCPU);
  const fm = Math.min(1, mem / allocMem);
  return Math.trunc((1 - Math.abs((fc - fm) / 2)) * maxNodeScore);
}
