/**
 * CSIStorageCapacities (storage.k8s.io/v1, namespaced), as upstream's
 * ValidateCSIStorageCapacity(Update): a valid node topology selector, a
 * StorageClass name, a non-negative capacity; topology and class never change.
 */
import { FieldError, invalid } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { formatQuantity, quantitySign } from '../quantity.js';
import { validateLabelSelector } from './labels.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { parseQuantityField } from './resources.js';
import { Obj, deepEqual, has, str, validateName } from './util.js';
import { appendAll } from '../append.js';

export function validateCSIStorageCapacityCreate(c: Obj): FieldError[] {
  const errs = validateObjectMeta(c.metadata, true, nameIsDNSSubdomain);
  if (has(c.nodeTopology)) appendAll(errs, validateLabelSelector(c.nodeTopology, 'nodeTopology'));
  appendAll(errs, validateName(str(c.storageClassName), 'storageClassName', nameIsDNSSubdomain));
  if (has(c.capacity)) {
    const q = parseQuantityField(c.capacity, 'capacity', errs);
    if (q && quantitySign(q) < 0) errs.push(invalid('capacity', formatQuantity(q), 'must be greater than or equal to 0'));
  }
  return errs;
}

export function validateCSIStorageCapacityUpdate(c: Obj, old: Obj): FieldError[] {
  const errs = [...validateObjectMetaUpdate(c.metadata, old.metadata), ...validateCSIStorageCapacityCreate(c)];
  if (!deepEqual(c.nodeTopology, old.nodeTopology)) errs.push(invalid('nodeTopology', c.nodeTopology, 'field is immutable'));
  if (str(c.storageClassName) !== str(old.storageClassName)) errs.push(invalid('storageClassName', str(c.storageClassName), 'field is immutable'));
  return errs;
}
