/**
 * The replica count a resource metric asks for (upstream podautoscaler
 * replica_calculator.go GetResourceReplicas, and the horizontal.go
 * normalization), pure:
 *  1. Per pod the usage (sum of its containers) and the request (sum of its
 *     containers' requests; a container without one is an error, as
 *     upstream: utilization of a pod that requests nothing is undefined).
 *  2. Pods being deleted and Failed pods are left out; pods without metrics
 *     are "missing"; for cpu, pods not Ready are "unready".
 *  3. ratio = utilization / target (or average value / target). Within the
 *     tolerance (0.1) of 1, or with no ready pod measured, the count stays.
 *  4. Missing pods count as using 100% of their request when scaling down
 *     and 0% when scaling up; unready pods 0% when scaling up; the ratio is
 *     recomputed, and if it crosses 1 or lands within the tolerance the count
 *     stays; otherwise ceil(ratio × pods counted).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { milliValue, parseQuantity } from '../../api/quantity.js';
import { podIsReady } from '../../api/pods.js';

export const tolerance = 0.1;

export interface PodUsage { /** Milli-units of the resource (millicores, or milli-bytes for memory). */ usage: number }

export interface ResourceTarget { kind: 'Utilization'; averageUtilization: number }
export interface ValueTarget { kind: 'AverageValue'; averageMilli: number }

export interface ReplicaResult {
  replicas: number;
  /** The utilization measured (percent of request), when the target is a utilization. */
  utilization?: number;
  /** The average usage per pod, milli-units. */
  averageMilli: number;
}

const milli = (q: unknown) => {
  const parsed = parseQuantity(q);
  return parsed ? Number(milliValue(parsed)) : undefined;
};

/** The pod's request for the resource, milli-units; throws upstream's error for a container without one. */
export function podRequest(pod: Pod, resource: string): number {
  let sum = 0;
  for (const c of pod.spec?.containers ?? []) {
    const r = milli(c.resources?.requests?.[resource]);
    if (r === undefined) throw new Error(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata?.name}`);
    sum += r;
  }
  return sum;
}

export function resourceReplicas(currentReplicas: number, target: ResourceTarget | ValueTarget, resource: string,
  pods: readonly Pod[], metrics: ReadonlyMap<string, number>): ReplicaResult {
  const live = pods.filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase !== 'Failed');
  if (live.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const ready: Pod[] = [];
  const missing: Pod[] = [];
  const unready: Pod[] = [];
  for (const p of live) {
    if (!metrics.has(p.metadata!.name!)) missing.push(p);
    else if (resource === 'cpu' && !podIsReady(p)) unready.push(p);
    else ready.push(p);
  }
  if (ready.length === 0 && metrics.size === 0) throw new Error(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
  const requests = new Map(live.map((p) => [p.metadata!.name!, target.kind === 'Utilization' ? podRequest(p, resource) : 0]));
  const ratioOf = (counted: readonly Pod[], usageOf: (p: Pod) => number) => {
    let usage = 0;
    let request = 0;
    for (const p of counted) { usage += usageOf(p); request += requests.get(p.metadata!.name!)!; }
    if (target.kind === 'Utilization') {
      const utilization = request > 0 ? (usage * 100) / request : 0;
      return { ratio: utilization / target.averageUtilization, utilization, average: counted.length ? usage / counted.length : 0 };
    }
    const average = counted.length ? usage / counted.length : 0;
    return { ratio: average / target.averageMilli, utilization: undefined, average };
  };
  const measured = (p: Pod) => metrics.get(p.metadata!.name!) ?? 0;
  const first = ratioOf(ready, measured);
  const result = (replicas: number): ReplicaResult => ({ replicas, utilization: first.utilization !== undefined ? Math.trunc(first.utilization) : undefined, averageMilli: first.average });
  if (missing.length === 0 && unready.length === 0) {
    if (Math.abs(1 - first.ratio) <= tolerance) return result(currentReplicas);
    return result(Math.ceil(first.ratio * ready.length));
  }
  if (ready.length === 0) return result(currentReplicas);
  const scaleUp = first.ratio > 1;
  // Missing pods: their full request when scaling down, nothing when scaling up; unready ones nothing when scaling up.
  const fill = (p: Pod) => {
    if (metrics.has(p.metadata!.name!) && !unready.includes(p)) return measured(p);
    if (scaleUp) return 0;
    return target.kind === 'Utilization' ? requests.get(p.metadata!.name!)! : target.averageMilli;
  };
  const counted = scaleUp ? [...ready, ...missing, ...unready] : [...ready, ...missing];
  const second = ratioOf(counted, fill);
  if (Math.abs(1 - second.ratio) <= tolerance || (scaleUp && second.ratio < 1) || (!scaleUp && second.ratio > 1)) return result(currentReplicas);
  const next = Math.ceil(second.ratio * counted.length);
  // Never move against the direction the measured pods asked for.
  if ((scaleUp && next < currentReplicas) || (!scaleUp && next > currentReplicas)) return result(currentReplicas);
  return result(next);
}
