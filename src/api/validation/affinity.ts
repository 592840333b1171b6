/**
 * Node and pod (anti-)affinity: node selector terms and requirements, field
 * selectors on metadata.name, weights 1-100, pod affinity terms with their
 * selectors, namespaces and topology keys.
 */
import { FieldError, forbidden, invalid, required } from '../field-errors.js';
import { isValidLabelValue, nameIsDNSSubdomain, validateNamespaceName } from '../names.js';
import { validateLabelName, validateLabelSelector } from './labels.js';
import { arr, child, index, isObj, obj, str } from './util.js';
import { appendAll } from '../append.js';

/** ValidateNodeSelectorRequirement. */
function nodeSelectorRequirement(r: unknown, allowInvalidValues: boolean, path: string): FieldError[] {
  const rq = obj(r);
  const values = arr(rq.values).map(str);
  const errs: FieldError[] = [];
  switch (rq.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(required(child(path, 'values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(invalid(child(path, 'operator'), str(rq.operator), 'not a valid selector operator'));
  }
  appendAll(errs, validateLabelName(str(rq.key), child(path, 'key')));
  if (!allowInvalidValues) {
    values.forEach((v, i) => appendAll(errs, isValidLabelValue(v).map((msg) => invalid(index(child(path, 'values'), i), v, msg))));
  }
  return errs;
}

/** ValidateNodeFieldSelectorRequirement: only metadata.name with In/NotIn and one value. */
function nodeFieldSelectorRequirement(r: unknown, path: string): FieldError[] {
  const rq = obj(r);
  const values = arr(rq.values).map(str);
  const errs: FieldError[] = [];
  if (rq.operator === 'In' || rq.operator === 'NotIn') {
    if (values.length !== 1) errs.push(required(child(path, 'values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else {
    errs.push(invalid(child(path, 'operator'), str(rq.operator), 'not a valid selector operator'));
  }
  if (rq.key !== 'metadata.name') errs.push(invalid(child(path, 'key'), str(rq.key), 'not a valid field selector key'));
  else values.forEach((v, i) => appendAll(errs, nameIsDNSSubdomain(v, false).map((msg) => invalid(index(child(path, 'values'), i), v, msg))));
  return errs;
}

/** ValidateNodeSelectorTerm. */
export function validateNodeSelectorTerm(term: unknown, allowInvalidValues: boolean, path: string): FieldError[] {
  const t = obj(term);
  return [
    ...arr(t.matchExpressions).flatMap((r, j) => nodeSelectorRequirement(r, allowInvalidValues, index(child(path, 'matchExpressions'), j))),
    ...arr(t.matchFields).flatMap((r, j) => nodeFieldSelectorRequirement(r, index(child(path, 'matchFields'), j))),
  ];
}

/** ValidateNodeSelector: at least one term. */
export function validateNodeSelector(sel: unknown, allowInvalidValues: boolean, path: string): FieldError[] {
  const terms = arr(obj(sel).nodeSelectorTerms);
  const termPath = child(path, 'nodeSelectorTerms');
  if (terms.length === 0) return [required(termPath, 'must have at least one node selector term')];
  return terms.flatMap((t, i) => validateNodeSelectorTerm(t, allowInvalidValues, index(termPath, i)));
}

const weightErr = (w: unknown, path: string) =>
  (typeof w !== 'number' || w <= 0 || w > 100 ? [invalid(path, typeof w === 'number' ? w : 0, 'must be in the range 1-100')] : []);

function podAffinityTerm(term: unknown, path: string): FieldError[] {
  const t = obj(term);
  const errs = [
    ...validateLabelSelector(t.labelSelector, child(path, 'labelSelector')),
    ...validateLabelSelector(t.namespaceSelector, child(path, 'namespaceSelector')),
  ];
  for (const ns of arr(t.namespaces).map(str)) appendAll(errs, validateNamespaceName(ns, false).map((msg) => invalid(child(path, 'namespace'), ns, msg)));
  for (const field of ['matchLabelKeys', 'mismatchLabelKeys']) {
    const keys = arr(t[field]).map(str);
    if (keys.length === 0) continue;
    if (!isObj(t.labelSelector)) errs.push(forbidden(child(path, field), 'must not be specified when labelSelector is not set'));
    else keys.forEach((k, i) => appendAll(errs, validateLabelName(k, index(child(path, field), i))));
  }
  if (!str(t.topologyKey)) errs.push(required(child(path, 'topologyKey'), 'can not be empty'));
  appendAll(errs, validateLabelName(str(t.topologyKey), child(path, 'topologyKey')));
  return errs;
}

function podAffinity(a: unknown, path: string): FieldError[] {
  const pa = obj(a);
  return [
    ...arr(pa.requiredDuringSchedulingIgnoredDuringExecution)
      .flatMap((t, i) => podAffinityTerm(t, index(child(path, 'requiredDuringSchedulingIgnoredDuringExecution'), i))),
    ...arr(pa.preferredDuringSchedulingIgnoredDuringExecution).flatMap((w, i) => {
      const p = index(child(path, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
      return [...weightErr(obj(w).weight, child(p, 'weight')), ...podAffinityTerm(obj(w).podAffinityTerm, child(p, 'podAffinityTerm'))];
    }),
  ];
}

/** validateAffinity. */
export function validateAffinity(affinity: unknown, path: string): FieldError[] {
  if (!isObj(affinity)) return [];
  const errs: FieldError[] = [];
  if (isObj(affinity.nodeAffinity)) {
    const na = affinity.nodeAffinity;
    const p = child(path, 'nodeAffinity');
    if (isObj(na.requiredDuringSchedulingIgnoredDuringExecution)) {
      appendAll(errs, validateNodeSelector(na.requiredDuringSchedulingIgnoredDuringExecution, false, child(p, 'requiredDuringSchedulingIgnoredDuringExecution')));
    }
    arr(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      const tp = index(child(p, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
      errs.push(...weightErr(obj(t).weight, child(tp, 'weight')), ...validateNodeSelectorTerm(obj(t).preference, true, child(tp, 'preference')));
    });
  }
  if (isObj(affinity.podAffinity)) appendAll(errs, podAffinity(affinity.podAffinity, child(path, 'podAffinity')));
  if (isObj(affinity.podAntiAffinity)) appendAll(errs, podAffinity(affinity.podAntiAffinity, child(path, 'podAntiAffinity')));
  return errs;
}
