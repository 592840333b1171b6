/**
 * PersistentVolumeClaimSpec (shared by PVCs, ephemeral volumes and templates)
 * and the access-mode and volume-mode rules PersistentVolumes share.
 */
import { FieldError, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { nameIsDNSSubdomain, validateNamespaceName } from '../names.js';
import { compareQuantities, formatQuantity, quantityFromInt } from '../quantity.js';
import { validateLabelSelector } from './labels.js';
import { parseQuantityField, validateResourceQuantityValue } from './resources.js';
import { arr, child, has, isObj, key, obj, str, validateName } from './util.js';
import { appendAll } from '../append.js';

export const supportedAccessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const supportedVolumeModes = ['Block', 'Filesystem'];

/** Each mode supported; ReadWriteOncePod alone. */
export function validateAccessModes(modes: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let rwop = false;
  let other = false;
  for (const raw of arr(modes)) {
    const mode = str(raw);
    if (!supportedAccessModes.includes(mode)) errs.push(notSupported(path, mode, supportedAccessModes));
    if (mode === 'ReadWriteOncePod') rwop = true;
    else if (supportedAccessModes.includes(mode)) other = true;
  }
  if (rwop && other) errs.push(forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

function validateDataSource(ds: unknown, path: string, typed: boolean): FieldError[] {
  const d = obj(ds);
  const errs: FieldError[] = [];
  if (!str(d.name)) errs.push(required(child(path, 'name')));
  if (!str(d.kind)) errs.push(required(child(path, 'kind')));
  const apiGroup = str(d.apiGroup);
  if (!apiGroup && d.kind !== 'PersistentVolumeClaim') errs.push(invalid(path, str(d.kind), "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  if (apiGroup) appendAll(errs, validateName(apiGroup, child(path, 'apiGroup'), nameIsDNSSubdomain));
  if (typed && str(d.namespace)) appendAll(errs, validateName(str(d.namespace), child(path, 'namespace'), validateNamespaceName));
  return errs;
}

/** ValidatePersistentVolumeClaimSpec. */
export function validatePersistentVolumeClaimSpec(specRaw: unknown, path: string): FieldError[] {
  const spec = obj(specRaw);
  const errs: FieldError[] = [];
  if (arr(spec.accessModes).length === 0) errs.push(required(child(path, 'accessModes'), 'at least 1 access mode is required'));
  if (isObj(spec.selector)) appendAll(errs, validateLabelSelector(spec.selector, child(path, 'selector')));
  appendAll(errs, validateAccessModes(spec.accessModes, child(path, 'accessModes')));
  const storagePath = key(child(path, 'resources'), 'storage');
  const requests = obj(obj(spec.resources).requests);
  if (!has(requests.storage)) {
    errs.push(required(storagePath));
  } else {
    const q = parseQuantityField(requests.storage, storagePath, errs);
    if (q && compareQuantities(q, quantityFromInt(0)) <= 0) errs.push(invalid(storagePath, formatQuantity(q), 'must be greater than zero'));
    else if (q) appendAll(errs, validateResourceQuantityValue('storage', requests.storage, q, storagePath));
  }
  if (str(spec.storageClassName)) appendAll(errs, validateName(str(spec.storageClassName), child(path, 'storageClassName'), nameIsDNSSubdomain));
  if (has(spec.volumeMode) && !supportedVolumeModes.includes(str(spec.volumeMode))) {
    errs.push(notSupported(child(path, 'volumeMode'), str(spec.volumeMode), supportedVolumeModes));
  }
  if (isObj(spec.dataSource)) appendAll(errs, validateDataSource(spec.dataSource, child(path, 'dataSource'), false));
  if (isObj(spec.dataSourceRef)) appendAll(errs, validateDataSource(spec.dataSourceRef, child(path, 'dataSourceRef'), true));
  return errs;
}
