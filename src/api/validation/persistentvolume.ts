/**
 * PersistentVolumes and PersistentVolumeClaims. PVs need access modes, a storage
 * capacity (and nothing else), a supported reclaim policy and exactly one volume
 * source; their source and volumeMode are immutable. PVC specs are immutable
 * except a bound claim's storage request (which may not shrink) and a first volumeName.
 */
import { FieldError, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { compareQuantities, formatQuantity, parseQuantity, quantityFromInt } from '../quantity.js';
import { goStringMap } from './govalue.js';
import { validateNodeSelector } from './affinity.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { supportedVolumeModes, validateAccessModes, validatePersistentVolumeClaimSpec } from './pvcspec.js';
import { parseQuantityField, validateResourceQuantityValue } from './resources.js';
import { Obj, arr, child, clone, deepEqual, has, immutable, isObj, key, obj, str, validateName } from './util.js';
import { validateCSIDriverName, validateHostPathSource } from './volumes.js';
import { appendAll } from '../append.js';

const pvSources = ['hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'flocker', 'nfs', 'rbd', 'quobyte', 'cephfs',
  'iscsi', 'cinder', 'fc', 'flexVolume', 'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk',
  'scaleIO', 'local', 'storageos', 'csi'];
const reclaimPolicies = ['Delete', 'Recycle', 'Retain'];

function validatePVSource(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const src of pvSources) {
    if (!isObj(spec[src])) continue;
    if (count++ > 0 && src !== 'flexVolume') {
      errs.push(forbidden(child(path, src), 'may not specify more than 1 volume type'));
      continue;
    }
    const p = child(path, src);
    if (src === 'hostPath') appendAll(errs, validateHostPathSource(spec.hostPath, p));
    if (src === 'nfs') {
      for (const f of ['server', 'path']) if (!str(spec.nfs[f])) errs.push(required(child(p, f)));
      if (!str(spec.nfs.path).startsWith('/')) errs.push(invalid(child(p, 'path'), str(spec.nfs.path), 'must be an absolute path'));
    }
    if (src === 'local') {
      if (!str(spec.local.path)) errs.push(required(child(p, 'path')));
      if (!isObj(spec.nodeAffinity)) errs.push(required(child(path, 'nodeAffinity'), 'Local volume requires node affinity'));
    }
    if (src === 'csi') {
      appendAll(errs, validateCSIDriverName(str(spec.csi.driver), child(p, 'driver')));
      if (!str(spec.csi.volumeHandle)) errs.push(required(child(p, 'volumeHandle')));
    }
  }
  if (count === 0) errs.push(required(path, 'must specify a volume type'));
  return errs;
}

/** ValidatePersistentVolumeSpec (not inline). */
function validatePVSpec(specRaw: unknown, path: string): FieldError[] {
  const spec = obj(specRaw);
  const errs: FieldError[] = [];
  if (arr(spec.accessModes).length === 0) errs.push(required(child(path, 'accessModes')));
  appendAll(errs, validateAccessModes(spec.accessModes, child(path, 'accessModes')));
  const capacity = obj(spec.capacity);
  const capPath = child(path, 'capacity');
  if (Object.keys(capacity).length === 0) errs.push(required(capPath));
  if (!('storage' in capacity) || Object.keys(capacity).length > 1) {
    errs.push(notSupported(capPath, goStringMap(isObj(spec.capacity) ? capacity : undefined, 'core.ResourceList'), ['storage']));
  }
  for (const [name, input] of Object.entries(capacity)) {
    const q = parseQuantityField(input, key(capPath, name), errs);
    if (!q) continue;
    appendAll(errs, validateResourceQuantityValue(name, input, q, key(capPath, name)));
    if (compareQuantities(q, quantityFromInt(0)) <= 0) errs.push(invalid(key(capPath, name), formatQuantity(q), 'must be greater than zero'));
  }
  if (str(spec.persistentVolumeReclaimPolicy) && !reclaimPolicies.includes(str(spec.persistentVolumeReclaimPolicy))) {
    errs.push(notSupported(child(path, 'persistentVolumeReclaimPolicy'), str(spec.persistentVolumeReclaimPolicy), reclaimPolicies));
  }
  if (isObj(spec.nodeAffinity)) {
    if (isObj(spec.nodeAffinity.required)) appendAll(errs, validateNodeSelector(spec.nodeAffinity.required, false, child(child(path, 'nodeAffinity'), 'required')));
    else errs.push(required(child(child(path, 'nodeAffinity'), 'required'), 'must specify required node constraints'));
  }
  appendAll(errs, validatePVSource(spec, path));
  if (isObj(spec.hostPath) && str(spec.hostPath.path).replace(/\/+$/, '') === '' && spec.persistentVolumeReclaimPolicy === 'Recycle') {
    errs.push(forbidden(child(path, 'persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (str(spec.storageClassName)) appendAll(errs, validateName(str(spec.storageClassName), child(path, 'storageClassName'), nameIsDNSSubdomain));
  if (has(spec.volumeMode) && !supportedVolumeModes.includes(str(spec.volumeMode))) {
    errs.push(notSupported(child(path, 'volumeMode'), str(spec.volumeMode), supportedVolumeModes));
  }
  return errs;
}

export const validatePVCreate = (pv: Obj) => [...validateObjectMeta(pv.metadata, false, nameIsDNSSubdomain), ...validatePVSpec(pv.spec, 'spec')];

export function validatePVUpdate(pv: Obj, old: Obj): FieldError[] {
  const n = obj(pv.spec);
  const o = obj(old.spec);
  const errs = validatePVCreate(pv);
  const source = (s: Obj) => Object.fromEntries(pvSources.filter((k) => k in s).map((k) => [k, s[k]]));
  const ns = source(n);
  if (isObj(ns.csi) && isObj(o.csi) && !has(o.csi.controllerExpandSecretRef)) ns.csi = { ...ns.csi, controllerExpandSecretRef: undefined };
  if (!deepEqual(ns, source(o))) errs.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation\n'));
  appendAll(errs, immutable(n.volumeMode, o.volumeMode, 'volumeMode'));
  if (isObj(o.nodeAffinity) && !deepEqual(n.nodeAffinity, o.nodeAffinity)) {
    errs.push(invalid('nodeAffinity', n.nodeAffinity ?? 'null', 'field is immutable, except for updating from beta label to GA'));
  }
  return errs;
}

export const validatePVCCreate = (pvc: Obj) =>
  [...validateObjectMeta(pvc.metadata, true, nameIsDNSSubdomain), ...validatePersistentVolumeClaimSpec(pvc.spec, 'spec')];

export function validatePVCUpdate(pvc: Obj, old: Obj): FieldError[] {
  const errs = [...validateObjectMetaUpdate(pvc.metadata, old.metadata), ...validatePVCCreate(pvc)];
  const n = clone(obj(pvc.spec));
  const o = clone(obj(old.spec));
  if (!str(o.volumeName)) o.volumeName = n.volumeName;
  // Retroactive default StorageClass (GA in 1.28): nil may become a class when no beta annotation names one.
  const betaClass = obj(obj(old.metadata).annotations)['volume.beta.kubernetes.io/storage-class'];
  if (o.storageClassName === undefined && betaClass === undefined && str(n.storageClassName)) o.storageClassName = n.storageClassName;
  const bound = obj(pvc.status).phase === 'Bound';
  if (bound && isObj(obj(n.resources).requests)) n.resources.requests.storage = obj(obj(o.resources).requests).storage;
  if (bound && has(n.volumeAttributesClassName)) n.volumeAttributesClassName = o.volumeAttributesClassName;
  if (!deepEqual(n, o)) {
    errs.push(forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n'));
  }
  // RecoverVolumeExpansionFailure is beta (on) in 1.32: a request may shrink, but not to the recorded capacity.
  const newSize = parseQuantity(obj(obj(obj(pvc.spec).resources).requests).storage);
  const oldSize = parseQuantity(obj(obj(obj(old.spec).resources).requests).storage);
  const statusSize = parseQuantity(obj(obj(old.status).capacity).storage) ?? quantityFromInt(0);
  if (newSize && oldSize && compareQuantities(newSize, oldSize) < 0 && compareQuantities(newSize, statusSize) <= 0) {
    errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  appendAll(errs, immutable(obj(pvc.spec).volumeMode, obj(old.spec).volumeMode, 'volumeMode'));
  return errs;
}
