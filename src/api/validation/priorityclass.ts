/**
 * PriorityClasses (scheduling.k8s.io/v1), as upstream's ValidatePriorityClass:
 * names starting with "system-" are reserved for the two system classes with
 * their fixed values; user classes may not exceed 1000000000; the value and
 * the preemption policy never change.
 */
import { FieldError, forbidden, notSupported } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, has, immutable, str } from './util.js';
import { appendAll } from '../append.js';

export const highestUserDefinablePriority = 1_000_000_000;
export const systemPriorityClassPrefix = 'system-';
/** The classes every cluster has (scheduling.SystemPriorityClasses). */
export const systemPriorityClasses: readonly { name: string; value: number; description: string }[] = [
  { name: 'system-node-critical', value: 2_000_001_000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2_000_000_000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];
export const preemptionPolicies = ['Never', 'PreemptLowerPriority'];

/** IsKnownSystemPriorityClass: undefined when it is one, else the reason. */
function knownSystemClassError(name: string, value: unknown, globalDefault: unknown): string | undefined {
  const sys = systemPriorityClasses.find((c) => c.name === name);
  if (!sys) return `${name} is not a known system priority class`;
  if (value !== sys.value) return `value of ${name} PriorityClass must be ${sys.value}`;
  if (globalDefault === true) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClassCreate(pc: Obj): FieldError[] {
  const errs = validateObjectMeta(pc.metadata, false, nameIsDNSSubdomain);
  const name = str(pc.metadata?.name);
  if (name.startsWith(systemPriorityClassPrefix)) {
    const err = knownSystemClassError(name, pc.value, pc.globalDefault);
    if (err) errs.push(forbidden('metadata.name', `priority class names with '${systemPriorityClassPrefix}' prefix are reserved for system use only. error: ${err}`));
  } else if (typeof pc.value === 'number' && pc.value > highestUserDefinablePriority) {
    errs.push(forbidden('value', `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
  }
  if (has(pc.preemptionPolicy) && !preemptionPolicies.includes(str(pc.preemptionPolicy))) {
    errs.push(notSupported('preemptionPolicy', str(pc.preemptionPolicy), preemptionPolicies));
  }
  return errs;
}

export function validatePriorityClassUpdate(pc: Obj, old: Obj): FieldError[] {
  const errs = validateObjectMetaUpdate(pc.metadata, old.metadata);
  if (pc.value !== old.value) errs.push(forbidden('value', 'may not be changed in an update.'));
  appendAll(errs, immutable(pc.preemptionPolicy, old.preemptionPolicy, 'preemptionPolicy'));
  return errs;
}
