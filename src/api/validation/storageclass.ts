/** StorageClasses (storage.k8s.io/v1): provisioner, parameters, reclaim policy and binding mode; most are immutable. */
import { FieldError, forbidden, invalid, notSupported, required, tooLong } from '../field-errors.js';
import { isQualifiedName, nameIsDNSSubdomain } from '../names.js';
import { validateNodeSelectorTerm } from './affinity.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, arr, deepEqual, has, immutable, index, obj, str } from './util.js';
import { appendAll } from '../append.js';

export function validateStorageClassCreate(sc: Obj): FieldError[] {
  const errs = validateObjectMeta(sc.metadata, false, nameIsDNSSubdomain);
  const provisioner = str(sc.provisioner);
  if (!provisioner) errs.push(required('provisioner'));
  else appendAll(errs, isQualifiedName(provisioner.toLowerCase()).map((msg) => invalid('provisioner', provisioner.toLowerCase(), msg)));
  const params = obj(sc.parameters);
  if (Object.keys(params).length > 512) {
    errs.push({ type: 'FieldValueTooLong', field: 'parameters', detail: 'may not be more than 512 bytes' });
  } else {
    let size = 0;
    for (const [k, v] of Object.entries(params)) size += k.length + str(v).length;
    if (size > 256 * 1024) errs.push(tooLong('parameters', 256 * 1024));
  }
  if (str(sc.reclaimPolicy) && !['Delete', 'Retain'].includes(str(sc.reclaimPolicy))) {
    errs.push(notSupported('reclaimPolicy', str(sc.reclaimPolicy), ['Delete', 'Retain']));
  }
  if (!has(sc.volumeBindingMode)) errs.push(required('volumeBindingMode'));
  else if (!['Immediate', 'WaitForFirstConsumer'].includes(str(sc.volumeBindingMode))) {
    errs.push(notSupported('volumeBindingMode', str(sc.volumeBindingMode), ['Immediate', 'WaitForFirstConsumer']));
  }
  arr(sc.allowedTopologies).forEach((t, i) => {
    const exprs = arr(obj(t).matchLabelExpressions);
    appendAll(errs, validateNodeSelectorTerm({ matchExpressions: exprs.map((e) => ({ key: obj(e).key, operator: 'In', values: obj(e).values })) }, true, index('allowedTopologies', i)));
  });
  return errs;
}

export function validateStorageClassUpdate(sc: Obj, old: Obj): FieldError[] {
  const errs = [...validateObjectMetaUpdate(sc.metadata, old.metadata)];
  if (!deepEqual(sc.parameters, old.parameters)) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (str(sc.provisioner) !== str(old.provisioner)) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (str(sc.reclaimPolicy) !== str(old.reclaimPolicy)) errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  appendAll(errs, immutable(sc.volumeBindingMode, old.volumeBindingMode, 'volumeBindingMode'));
  return errs;
}
