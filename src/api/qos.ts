/**
 * A pod's quality-of-service class (upstream pkg/apis/core/v1/helper/qos
 * GetPodQOS), on cpu and memory of every container and init container:
 *
 *  1. Zero quantities count as unset.
 *  2. No request and no limit anywhere: BestEffort.
 *  3. Every container limits both cpu and memory, and the pod's summed
 *     requests equal its summed limits (resource by resource): Guaranteed.
 *  4. Anything else: Burstable.
 *
 * The API server records it in status.qosClass at creation; the kubelet
 * derives oom_score_adj from it (runtime/cri/resources.ts).
 */
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import { addQuantities, compareQuantities, isZeroQuantity, parseQuantity, type Quantity } from './quantity.js';

export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const qosResources = ['cpu', 'memory'];

function sum(into: Map<string, Quantity>, list: Record<string, unknown> | undefined): Set<string> {
  const found = new Set<string>();
  for (const name of qosResources) {
    const q = list?.[name] === undefined ? undefined : parseQuantity(list[name]);
    if (!q || isZeroQuantity(q)) continue;
    found.add(name);
    const old = into.get(name);
    into.set(name, old ? addQuantities(old, q) : q);
  }
  return found;
}

export function podQOSClass(spec: PodSpec | undefined): PodQOSClass {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
    sum(requests, c.resources?.requests);
    const limited = sum(limits, c.resources?.limits);
    if (!qosResources.every((r) => limited.has(r))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || compareQuantities(lim, req) !== 0) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
