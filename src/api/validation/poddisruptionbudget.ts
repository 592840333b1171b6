/**
 * PodDisruptionBudgets (policy/v1), as upstream's ValidatePodDisruptionBudget:
 * minAvailable and maxUnavailable are exclusive, each a non-negative number or
 * a percentage of at most 100%; the selector must parse; the unhealthy pod
 * eviction policy is IfHealthyBudget or AlwaysAllow. The spec is mutable in
 * policy/v1; status counts are non-negative.
 */
import { FieldError, invalid, notSupported } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { isNotMoreThan100Percent, validatePositiveIntOrPercent } from './intorpercent.js';
import { validateLabelSelector } from './labels.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, child, goValue, has, nonNegative, obj, str } from './util.js';
import { appendAll } from '../append.js';

export const unhealthyPodEvictionPolicies = ['IfHealthyBudget', 'AlwaysAllow'];

function validateIntOrPercent(v: unknown, path: string): FieldError[] {
  if (!has(v)) return [];
  return [...validatePositiveIntOrPercent(v, path), ...isNotMoreThan100Percent(v, path)];
}

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudgetSpec(spec: Obj, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  if (has(spec.minAvailable) && has(spec.maxUnavailable)) {
    errs.push(invalid(path, goValue('policy.PodDisruptionBudgetSpec{...}'), 'minAvailable and maxUnavailable cannot be both set'));
  }
  appendAll(errs, validateIntOrPercent(spec.minAvailable, child(path, 'minAvailable')));
  appendAll(errs, validateIntOrPercent(spec.maxUnavailable, child(path, 'maxUnavailable')));
  appendAll(errs, validateLabelSelector(spec.selector, child(path, 'selector')));
  const policy = str(spec.unhealthyPodEvictionPolicy);
  if (has(spec.unhealthyPodEvictionPolicy) && !unhealthyPodEvictionPolicies.includes(policy)) {
    errs.push(notSupported(child(path, 'unhealthyPodEvictionPolicy'), policy, unhealthyPodEvictionPolicies));
  }
  return errs;
}

function validateStatus(status: Obj): FieldError[] {
  return ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']
    .flatMap((f) => nonNegative(status[f], child('status', f)));
}

export function validatePodDisruptionBudgetCreate(pdb: Obj): FieldError[] {
  return [...validateObjectMeta(pdb.metadata, true, nameIsDNSSubdomain), ...validatePodDisruptionBudgetSpec(obj(pdb.spec))];
}

export function validatePodDisruptionBudgetUpdate(pdb: Obj, old: Obj, subresource?: string): FieldError[] {
  const errs = validateObjectMetaUpdate(pdb.metadata, old.metadata);
  if (subresource === 'status') return [...errs, ...validateStatus(obj(pdb.status))];
  return [...errs, ...validatePodDisruptionBudgetSpec(obj(pdb.spec))];
}
