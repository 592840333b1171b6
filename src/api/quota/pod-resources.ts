/**
 * A pod's requests and limits as exact ResourceLists (upstream
 * resourcehelper.PodRequests / PodLimits): containers add up; an init
 * container runs alone, so the pod needs the largest of them (plus the
 * restartable sidecars started before it); sidecars run for the pod's life
 * and add to the total; spec.overhead is added (to limits only where the pod
 * has a limit for that resource).
 */
import type { Container, PodSpec } from 'kubernetes-types/core/v1.js';
import { compareQuantities } from '../quantity.js';
import { ResourceList, addLists, parseResourceList } from './arithmetic.js';

function maxInto(dst: ResourceList, src: ResourceList): void {
  for (const [k, v] of src) if (!dst.has(k) || compareQuantities(v, dst.get(k)!) > 0) dst.set(k, v);
}

function aggregate(spec: PodSpec | undefined, pick: (c: Container) => Record<string, unknown> | undefined): ResourceList {
  let total: ResourceList = new Map();
  for (const c of spec?.containers ?? []) total = addLists(total, parseResourceList(pick(c)));
  let sidecars: ResourceList = new Map();
  const initNeed: ResourceList = new Map();
  for (const c of spec?.initContainers ?? []) {
    const own = parseResourceList(pick(c));
    if (c.restartPolicy === 'Always') {
      total = addLists(total, own);
      sidecars = addLists(sidecars, own);
      maxInto(initNeed, sidecars);
    } else {
      maxInto(initNeed, addLists(own, sidecars));
    }
  }
  maxInto(total, initNeed);
  return total;
}

export function podRequests(spec: PodSpec | undefined): ResourceList {
  return addLists(aggregate(spec, (c) => c.resources?.requests), parseResourceList(spec?.overhead));
}

export function podLimits(spec: PodSpec | undefined): ResourceList {
  const limits = aggregate(spec, (c) => c.resources?.limits);
  const overhead = parseResourceList(spec?.overhead);
  return addLists(limits, new Map([...overhead].filter(([k]) => limits.has(k))));
}
