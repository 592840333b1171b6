/**
 * CSIDrivers (storage.k8s.io/v1), as upstream's ValidateCSIDriver(Update) in 1.32:
 * defaulted booleans must be set, fsGroupPolicy and volumeLifecycleModes take
 * known values, token request audiences are distinct and their lifetimes within
 * 10 minutes..2^32 s. attachRequired and volumeLifecycleModes never change;
 * podInfoOnMount, requiresRepublish, tokenRequests, storageCapacity, fsGroupPolicy
 * and seLinuxMount may (and bump the generation).
 */
import { FieldError, duplicate, invalid, notSupported, required } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, arr, child, has, immutable, index, obj, str } from './util.js';
import { appendAll } from '../append.js';

const fsGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'];
const lifecycleModes = ['Persistent', 'Ephemeral'];

export function validateCSIDriverCreate(driver: Obj): FieldError[] {
  return [...validateObjectMeta(driver.metadata, false, nameIsDNSSubdomain), ...validateCSIDriverSpec(obj(driver.spec))];
}

export function validateCSIDriverUpdate(driver: Obj, old: Obj): FieldError[] {
  const [spec, oldSpec] = [obj(driver.spec), obj(old.spec)];
  return [
    ...validateObjectMetaUpdate(driver.metadata, old.metadata),
    ...validateCSIDriverSpec(spec),
    // Upstream's path says attachedRequired (sic): kept, since clients match on it.
    ...immutable(spec.attachRequired, oldSpec.attachRequired, 'spec.attachedRequired'),
    ...immutable(spec.volumeLifecycleModes, oldSpec.volumeLifecycleModes, 'spec.volumeLifecycleModes'),
  ];
}

function validateCSIDriverSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  for (const [field, path] of [['attachRequired', 'spec.attachedRequired'], ['podInfoOnMount', 'spec.podInfoOnMount'], ['storageCapacity', 'spec.storageCapacity']]) {
    if (!has(spec[field])) errs.push(required(path));
  }
  if (has(spec.fsGroupPolicy) && !fsGroupPolicies.includes(str(spec.fsGroupPolicy))) errs.push(notSupported('spec.fsGroupPolicy', str(spec.fsGroupPolicy), fsGroupPolicies));
  appendAll(errs, validateTokenRequests(arr(spec.tokenRequests), 'spec.tokenRequests'));
  for (const mode of arr(spec.volumeLifecycleModes).map(str)) {
    if (!lifecycleModes.includes(mode)) errs.push(notSupported('spec.volumeLifecycleModes', mode, lifecycleModes));
  }
  if (!has(spec.seLinuxMount)) errs.push(required('spec.seLinuxMount'));
  return errs;
}

function validateTokenRequests(requests: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const audiences = new Set<string>();
  requests.forEach((r, i) => {
    const audience = str(obj(r).audience);
    if (audiences.has(audience)) {
      errs.push(duplicate(child(index(path, i), 'audience'), audience));
      return;
    }
    audiences.add(audience);
    const seconds = obj(r).expirationSeconds;
    if (typeof seconds !== 'number') return;
    const at = child(index(path, i), 'expirationSeconds');
    if (seconds < 600) errs.push(invalid(at, seconds, 'may not specify a duration less than 10 minutes'));
    if (seconds > 2 ** 32) errs.push(invalid(at, seconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  return errs;
}
