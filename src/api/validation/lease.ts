/** Leases (coordination.k8s.io/v1): positive durations, non-negative transitions, a known strategy. */
import { FieldError, forbidden, invalid, notSupported } from '../field-errors.js';
import { isQualifiedName, nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, has, obj, str } from './util.js';
import { appendAll } from '../append.js';

function validateLeaseSpec(specRaw: unknown): FieldError[] {
  const spec = obj(specRaw);
  const errs: FieldError[] = [];
  if (has(spec.leaseDurationSeconds) && spec.leaseDurationSeconds <= 0) {
    errs.push(invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (has(spec.leaseTransitions) && spec.leaseTransitions < 0) {
    errs.push(invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (has(spec.strategy)) {
    const s = str(spec.strategy);
    if (!s.includes('/')) {
      if (s !== 'OldestEmulationVersion') errs.push(notSupported('spec.strategy.strategy', s, ['OldestEmulationVersion']));
    } else {
      appendAll(errs, isQualifiedName(s).map((msg) => invalid('spec.strategy.strategy', s, msg)));
    }
  }
  if (str(spec.preferredHolder) && !str(spec.strategy)) errs.push(forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  return errs;
}

export const validateLeaseCreate = (lease: Obj) => [...validateObjectMeta(lease.metadata, true, nameIsDNSSubdomain), ...validateLeaseSpec(lease.spec)];
export const validateLeaseUpdate = (lease: Obj, old: Obj) => [...validateObjectMetaUpdate(lease.metadata, old.metadata), ...validateLeaseSpec(lease.spec)];
