/**
 * LimitRanger's rules as pure functions (upstream plugin/pkg/admission/limitranger):
 *  1. Defaults: a container without a limit (request) for a resource gets the
 *     Container items' `default` (`defaultRequest`), and the pod is annotated
 *     `kubernetes.io/limit-ranger: LimitRanger plugin set: cpu, memory request for container c; ...`.
 *  2. Container items: each container's request and limit are held to min,
 *     max and maxLimitRequestRatio; Pod items hold the pod's totals to the
 *     same; PersistentVolumeClaim items hold the claim's storage request to min and max.
 * Messages are upstream's (`maximum cpu usage per Container is 1, but limit is 2`).
 */
import type { Container, LimitRange, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { Quantity, compareQuantities, formatQuantity, isZeroQuantity, milliValue } from '../../api/quantity.js';
import { ResourceList, parseResourceList, podLimits, podRequests } from '../../api/quota/index.js';

export const limitRangerAnnotation = 'kubernetes.io/limit-ranger';

const containerItems = (lr: LimitRange) => (lr.spec?.limits ?? []).filter((i) => i.type === 'Container');

/** defaultContainerResourceRequirements: the Container items' defaults, merged. */
function defaultRequirements(lr: LimitRange): { limits: Record<string, any>; requests: Record<string, any> } {
  const limits: Record<string, any> = {};
  const requests: Record<string, any> = {};
  for (const item of containerItems(lr)) {
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  return { limits, requests };
}

function mergeContainer(c: Container, defaults: { limits: Record<string, any>; requests: Record<string, any> }, prefix: string, notes: string[]): void {
  const resources = (c.resources ??= {});
  const limits = (resources.limits ??= {});
  const requests = (resources.requests ??= {});
  const setLimits = Object.keys(defaults.limits).filter((k) => !(k in limits)).sort();
  const setRequests = Object.keys(defaults.requests).filter((k) => !(k in requests)).sort();
  for (const k of setLimits) limits[k] = defaults.limits[k];
  for (const k of setRequests) requests[k] = defaults.requests[k];
  if (setRequests.length) notes.push(`${setRequests.join(', ')} request for ${prefix} ${c.name}`);
  if (setLimits.length) notes.push(`${setLimits.join(', ')} limit for ${prefix} ${c.name}`);
  // Empty maps are not serialized by Go (omitempty).
  if (Object.keys(limits).length === 0) delete resources.limits;
  if (Object.keys(requests).length === 0) delete resources.requests;
}

/** Rule 1, for one LimitRange; mutates the pod. */
export function applyLimitRangeDefaults(pod: Pod, lr: LimitRange): void {
  const defaults = defaultRequirements(lr);
  if (!Object.keys(defaults.limits).length && !Object.keys(defaults.requests).length) return;
  const notes: string[] = [];
  for (const c of pod.spec?.containers ?? []) mergeContainer(c, defaults, 'container', notes);
  for (const c of pod.spec?.initContainers ?? []) mergeContainer(c, defaults, 'init container', notes);
  if (notes.length) {
    pod.metadata ??= {};
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [limitRangerAnnotation]: `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

const s = formatQuantity;

function minConstraint(type: string, r: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(r);
  const lim = limits.get(r);
  if (!req) return `minimum ${r} usage per ${type} is ${s(enforced)}.  No request is specified`;
  if (compareQuantities(req, enforced) < 0) return `minimum ${r} usage per ${type} is ${s(enforced)}, but request is ${s(req)}`;
  if (lim && compareQuantities(lim, enforced) < 0) return `minimum ${r} usage per ${type} is ${s(enforced)}, but limit is ${s(lim)}`;
  return undefined;
}

function maxConstraint(type: string, r: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(r);
  const lim = limits.get(r);
  if (!lim) return `maximum ${r} usage per ${type} is ${s(enforced)}.  No limit is specified`;
  if (compareQuantities(lim, enforced) > 0) return `maximum ${r} usage per ${type} is ${s(enforced)}, but limit is ${s(lim)}`;
  if (req && compareQuantities(req, enforced) > 0) return `maximum ${r} usage per ${type} is ${s(enforced)}, but request is ${s(req)}`;
  return undefined;
}

function ratioConstraint(type: string, r: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(r);
  const lim = limits.get(r);
  if (!req || isZeroQuantity(req)) return `${r} max limit to request ratio per ${type} is ${s(enforced)}, but no request is specified or request is 0`;
  if (!lim || isZeroQuantity(lim)) return `${r} max limit to request ratio per ${type} is ${s(enforced)}, but no limit is specified or limit is 0`;
  const observed = Number(milliValue(lim)) / Number(milliValue(req));
  if (observed * 1000 > Number(milliValue(enforced))) {
    return `${r} max limit to request ratio per ${type} is ${s(enforced)}, but provided ratio is ${observed.toFixed(6)}`;
  }
  return undefined;
}

/** min, max and ratio of one item against one set of requests and limits. */
function checkItem(type: string, item: NonNullable<LimitRange['spec']>['limits'][number], requests: ResourceList, limits: ResourceList): string[] {
  const errs: (string | undefined)[] = [];
  for (const [r, v] of parseResourceList(item.min)) errs.push(minConstraint(type, r, v, requests, limits));
  for (const [r, v] of parseResourceList(item.max)) errs.push(maxConstraint(type, r, v, requests, limits));
  for (const [r, v] of parseResourceList(item.maxLimitRequestRatio)) errs.push(ratioConstraint(type, r, v, requests, limits));
  return errs.filter((e): e is string => !!e);
}

/** Rule 2 for pods: the messages of every violated constraint. */
export function validatePodLimits(pod: Pod, lr: LimitRange): string[] {
  const errs: string[] = [];
  for (const item of lr.spec?.limits ?? []) {
    if (item.type === 'Container') {
      for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
        errs.push(...checkItem('Container', item, parseResourceList(c.resources?.requests), parseResourceList(c.resources?.limits)));
      }
    } else if (item.type === 'Pod') {
      errs.push(...checkItem('Pod', item, podRequests(pod.spec), podLimits(pod.spec)));
    }
  }
  return errs;
}

/** Rule 2 for claims: storage requests against min and max (the claim's limits are not user input). */
export function validatePVCLimits(pvc: PersistentVolumeClaim, lr: LimitRange): string[] {
  const errs: string[] = [];
  const requests = parseResourceList(pvc.spec?.resources?.requests);
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [r, v] of parseResourceList(item.min)) {
      const e = minConstraint('PersistentVolumeClaim', r, v, requests, new Map());
      if (e) errs.push(e);
    }
    for (const [r, v] of parseResourceList(item.max)) {
      const req = requests.get(r);
      if (!req) errs.push(`maximum ${r} usage per PersistentVolumeClaim is ${s(v)}.  No request is specified`);
      else if (compareQuantities(req, v) > 0) errs.push(`maximum ${r} usage per PersistentVolumeClaim is ${s(v)}, but request is ${s(req)}`);
    }
  }
  return errs;
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several as `[a, b]`. */
export const aggregateMessage = (errs: string[]) => (errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
