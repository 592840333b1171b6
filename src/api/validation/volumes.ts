/**
 * Pod volumes (ValidateVolumes): unique DNS-label names and exactly one source,
 * checked in upstream's source order, with the common sources validated in depth.
 */
import { FieldError, duplicate, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { isDNS1123Label, nameIsDNSSubdomain } from '../names.js';
import { compareQuantities, quantityFromInt } from '../quantity.js';
import { validateObjectFieldSelector, validateResourceFieldSelector, volumeFieldPaths } from './downwardapi.js';
import { validateLabels } from './labels.js';
import { validateAnnotations } from './objectmeta.js';
import { mayNotBeLocal, validateLocalDescendingPath, validateLocalNonReservedPath, validatePathNoBacksteps } from './paths.js';
import { validatePersistentVolumeClaimSpec } from './pvcspec.js';
import { parseQuantityField } from './resources.js';
import { Obj, arr, child, has, index, isObj, obj, str, validateName } from './util.js';
import { appendAll } from '../append.js';

const fileModeErrorMsg = 'must be a number between 0 and 0777 (octal), both inclusive';
const hostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

type SourceValidator = (src: Obj, path: string, volName: string, podName: string) => FieldError[];

function mode(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && (value > 0o777 || value < 0) ? [invalid(path, value, fileModeErrorMsg)] : [];
}

function keyToPath(item: unknown, path: string): FieldError[] {
  const kp = obj(item);
  const errs: FieldError[] = [];
  if (!str(kp.key)) errs.push(required(child(path, 'key')));
  const target = str(kp.path);
  if (!target) errs.push(required(child(path, 'path')));
  // The item's member paths are made only for an error (every pod's token volume has two items).
  if (mayNotBeLocal(target)) appendAll(errs, validateLocalNonReservedPath(target, child(path, 'path')));
  if (badMode(kp.mode)) appendAll(errs, mode(kp.mode, child(path, 'mode')));
  return errs;
}

const badMode = (value: unknown) => typeof value === 'number' && (value > 0o777 || value < 0);

function items(list: unknown, path: string): FieldError[] {
  return arr(list).flatMap((it, i) => keyToPath(it, index(path, i)));
}

/** validateDownwardAPIVolumeFile: upstream reports these at the source's path, not the item's. */
function downwardAPIFile(file: unknown, path: string): FieldError[] {
  const f = obj(file);
  const errs: FieldError[] = [];
  const target = str(f.path);
  if (!target) errs.push(required(child(path, 'path')));
  if (mayNotBeLocal(target)) appendAll(errs, validateLocalNonReservedPath(target, child(path, 'path')));
  if (isObj(f.fieldRef)) {
    appendAll(errs, validateObjectFieldSelector(f.fieldRef, volumeFieldPaths, child(path, 'fieldRef')));
    if (isObj(f.resourceFieldRef)) errs.push(invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (isObj(f.resourceFieldRef)) {
    appendAll(errs, validateResourceFieldSelector(f.resourceFieldRef, child(path, 'resourceFieldRef'), true));
  } else {
    errs.push(required(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  if (badMode(f.mode)) appendAll(errs, mode(f.mode, child(path, 'mode')));
  return errs;
}

/** The projections of keys to paths, in upstream's order (a constant: not an array per source). */
const keyedProjections = ['secret', 'configMap'] as const;

/** A projected file's path, noted; one seen before is a conflict, reported at the projected source's path. */
function notePath(seen: Set<string>, p: string, shown: string, path: string, errs: FieldError[]): void {
  if (seen.has(p)) errs.push(invalid(path, shown, 'conflicting duplicate paths'));
  seen.add(p);
}

/** `path.sources[i]`, made when an error names it. */
const sourcePath = (path: string, i: number) => index(child(path, 'sources'), i);

function projectedSources(src: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const sources = arr(src.sources);
  for (let i = 0; i < sources.length; i++) {
    const s = obj(sources[i]);
    let count = 0;
    for (const kind of keyedProjections) {
      const projection = s[kind];
      if (!isObj(projection)) continue;
      count++;
      const name = str(projection.name);
      if (!name) errs.push(required(child(child(sourcePath(path, i), kind), 'name')));
      const list = arr(projection.items);
      for (let j = 0; j < list.length; j++) {
        const it = list[j];
        appendAll(errs, keyToPath(it, index(child(child(sourcePath(path, i), kind), 'items'), j)));
        const target = str(obj(it).path);
        if (target) notePath(seen, target, name, path, errs);
      }
    }
    if (isObj(s.downwardAPI)) {
      count++;
      const files = arr(s.downwardAPI.items);
      for (let j = 0; j < files.length; j++) {
        const f = files[j];
        appendAll(errs, downwardAPIFile(f, child(sourcePath(path, i), 'downwardAPI')));
        const target = str(obj(f).path);
        if (target) notePath(seen, target, target, path, errs);
      }
    }
    if (isObj(s.serviceAccountToken)) {
      count++;
      const t = s.serviceAccountToken;
      const seconds = typeof t.expirationSeconds === 'number' ? t.expirationSeconds : 3600;
      if (seconds < 600) errs.push(invalid(child(child(sourcePath(path, i), 'serviceAccountToken'), 'expirationSeconds'), seconds, 'may not specify a duration less than 10 minutes'));
      if (seconds > 2 ** 32) errs.push(invalid(child(child(sourcePath(path, i), 'serviceAccountToken'), 'expirationSeconds'), seconds, 'may not specify a duration larger than 2^32 seconds'));
      const target = str(t.path);
      if (!target) errs.push(required(child(path, 'path')));
      else if (mayNotBeLocal(target)) appendAll(errs, validateLocalNonReservedPath(target, child(path, 'path')));
    }
    if (isObj(s.clusterTrustBundle)) count++;
    if (count > 1) errs.push(forbidden(sourcePath(path, i), 'may not specify more than 1 volume type per source'));
  }
  return errs;
}

const requiredFields = (fields: string[]): SourceValidator => (src, path) =>
  fields.filter((f) => !has(src[f]) || src[f] === '' || (Array.isArray(src[f]) && src[f].length === 0)).map((f) => required(child(path, f)));

/** The volume sources in upstream's order, with the child name its errors use. */
const sources: [string, string, SourceValidator][] = [
  ['emptyDir', 'emptyDir', (src, path) => {
    const errs: FieldError[] = [];
    if (has(src.sizeLimit)) {
      const q = parseQuantityField(src.sizeLimit, child(path, 'sizeLimit'), errs);
      if (q && compareQuantities(q, quantityFromInt(0)) < 0) errs.push(forbidden(child(path, 'sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
    }
    return errs;
  }],
  ['hostPath', 'hostPath', (src, path) => validateHostPathSource(src, path)],
  ['gitRepo', 'gitRepo', (src, path) => [
    ...requiredFields(['repository'])(src, path, '', ''),
    ...validateLocalDescendingPath(str(src.directory), child(path, 'directory')),
  ]],
  ['gcePersistentDisk', 'gcePersistentDisk', (src, path) => requiredFields(['pdName'])(src, path.replace(/gcePersistentDisk$/, 'persistentDisk'), '', '')],
  ['awsElasticBlockStore', 'awsElasticBlockStore', requiredFields(['volumeID'])],
  ['secret', 'secret', (src, path) => [
    ...(str(src.secretName) ? [] : [required(child(path, 'secretName'))]),
    ...mode(src.defaultMode, child(path, 'defaultMode')),
    ...items(src.items, child(path, 'items')),
  ]],
  ['nfs', 'nfs', (src, path) => [
    ...requiredFields(['server', 'path'])(src, path, '', ''),
    ...(str(src.path).startsWith('/') ? [] : [invalid(child(path, 'path'), str(src.path), 'must be an absolute path')]),
  ]],
  ['iscsi', 'iscsi', requiredFields(['targetPortal', 'iqn'])],
  ['glusterfs', 'glusterfs', requiredFields(['endpoints', 'path'])],
  ['flocker', 'flocker', () => []],
  ['persistentVolumeClaim', 'persistentVolumeClaim', requiredFields(['claimName'])],
  ['rbd', 'rbd', requiredFields(['monitors', 'image'])],
  ['cinder', 'cinder', requiredFields(['volumeID'])],
  ['cephfs', 'cephFS', (src, path) => requiredFields(['monitors'])(src, path.replace(/cephFS$/, 'cephfs'), '', '')],
  ['quobyte', 'quobyte', requiredFields(['registry', 'volume'])],
  ['downwardAPI', 'downwarAPI', (src, path) => {
    const p = path.replace(/downwarAPI$/, 'downwardAPI');
    return [...mode(src.defaultMode, child(p, 'defaultMode')), ...arr(src.items).flatMap((f) => downwardAPIFile(f, p))];
  }],
  ['fc', 'fc', () => []],
  ['flexVolume', 'flexVolume', requiredFields(['driver'])],
  ['configMap', 'configMap', (src, path) => [
    ...(str(src.name) ? [] : [required(child(path, 'name'))]),
    ...mode(src.defaultMode, child(path, 'defaultMode')),
    ...items(src.items, child(path, 'items')),
  ]],
  ['azureFile', 'azureFile', requiredFields(['secretName', 'shareName'])],
  ['vsphereVolume', 'vsphereVolume', requiredFields(['volumePath'])],
  ['photonPersistentDisk', 'photonPersistentDisk', requiredFields(['pdID'])],
  ['portworxVolume', 'portworxVolume', requiredFields(['volumeID'])],
  ['azureDisk', 'azureDisk', requiredFields(['diskName', 'diskURI'])],
  ['storageos', 'storageos', requiredFields(['volumeName'])],
  ['projected', 'projected', (src, path) => [...mode(src.defaultMode, child(path, 'defaultMode')), ...projectedSources(src, path)]],
  ['scaleIO', 'scaleIO', requiredFields(['gateway', 'system', 'volumeName'])],
  ['csi', 'csi', (src, path) => validateCSIDriverName(str(src.driver), child(path, 'driver'))],
  ['ephemeral', 'ephemeral', (src, path, volName, podName) => validateEphemeral(src, path, volName, podName)],
  ['image', 'image', () => []],
];

/** validateHostPathVolumeSource (shared with PersistentVolumes). */
export function validateHostPathSource(src: Obj, path: string): FieldError[] {
  if (!str(src.path)) return [required(child(path, 'path'))];
  const errs = validatePathNoBacksteps(str(src.path), child(path, 'path'));
  if (has(src.type) && !hostPathTypes.includes(str(src.type))) errs.push(notSupported(child(path, 'type'), str(src.type), hostPathTypes));
  return errs;
}

/** ValidateCSIDriverName. */
export function validateCSIDriverName(driver: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!driver) errs.push(required(path));
  if (driver.length > 63) errs.push({ type: 'FieldValueTooLong', field: path, detail: 'may not be more than 63 bytes' });
  appendAll(errs, validateName(driver.toLowerCase(), path, nameIsDNSSubdomain).map((e) => ({ ...e, value: driver })));
  return errs;
}

function validateEphemeral(src: Obj, path: string, volName: string, podName: string): FieldError[] {
  if (!isObj(src.volumeClaimTemplate)) return [required(child(path, 'volumeClaimTemplate'))];
  const tpl = src.volumeClaimTemplate;
  const tplPath = child(path, 'volumeClaimTemplate');
  const meta = obj(tpl.metadata);
  const errs = [
    ...validateAnnotations(meta.annotations, child(child(tplPath, 'metadata'), 'annotations')),
    ...validateLabels(meta.labels, child(child(tplPath, 'metadata'), 'labels')),
    ...Object.keys(meta).filter((k) => !['annotations', 'labels'].includes(k)).map((k) => forbidden(child(child(tplPath, 'metadata'), k), 'cannot be set')),
    ...validatePersistentVolumeClaimSpec(tpl.spec, child(tplPath, 'spec')),
  ];
  if (podName && volName) {
    const pvcName = `${podName}-${volName}`;
    appendAll(errs, nameIsDNSSubdomain(pvcName, false).map((msg) => invalid(child(path.replace(/\.ephemeral$/, ''), 'name'), volName, `PVC name "${pvcName}": ${msg}`)));
  }
  return errs;
}

/** validateVolumeSource: exactly one source; extra ones are forbidden at their own path. */
/** The sources by field name, to find a volume's from its own few keys. */
const sourceByField = new Map(sources.map((s) => [s[0], s]));

function validateVolumeSource(vol: Obj, path: string, podName: string): FieldError[] {
  // Nearly every volume has one source: found among the volume's own keys rather than by
  // looking up all thirty source fields in it. With none or several, the ordered walk below
  // reports them in upstream's order.
  let only: [string, string, SourceValidator] | undefined;
  let found = 0;
  for (const key in vol) {
    const source = sourceByField.get(key);
    if (source && isObj(vol[key])) { only = source; found++; }
  }
  const errs: FieldError[] = [];
  if (found === 1) return appendAll(errs, only![2](vol[only![0]], child(path, only![1]), str(vol.name), podName));
  let count = 0;
  for (const [field, errName, validate] of sources) {
    if (!isObj(vol[field])) continue;
    if (count > 0) {
      errs.push(forbidden(child(path, errName), 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    appendAll(errs, validate(vol[field], child(path, errName), str(vol.name), podName));
  }
  if (count === 0) errs.push(required(path, 'must specify a volume type'));
  return errs;
}

/** ValidateVolumes: returns the valid volumes by name (for mounts) and the errors. */
export function validateVolumes(volumes: unknown, podName: string, path: string): { volumes: Map<string, Obj>; errors: FieldError[] } {
  const valid = new Map<string, Obj>();
  const names = new Set<string>();
  const errors: FieldError[] = [];
  // The claims ephemeral volumes create, only for a pod that has such a volume.
  let ephemeralPVCs: Set<string> | undefined;
  const list = arr(volumes);
  if (podName) for (const v of list) if (isObj(obj(v).ephemeral)) (ephemeralPVCs ??= new Set()).add(`${podName}-${str(obj(v).name)}`);
  for (let i = 0; i < list.length; i++) {
    const vol = obj(list[i]);
    const p = index(path, i);
    const name = str(vol.name);
    const el = validateVolumeSource(vol, p, podName);
    if (!name) el.push(required(child(p, 'name')));
    else {
      const msgs = isDNS1123Label(name);
      if (msgs.length > 0) appendAll(el, msgs.map((msg) => invalid(child(p, 'name'), name, msg)));
    }
    if (names.has(name)) el.push(duplicate(child(p, 'name'), name));
    if (el.length === 0) {
      names.add(name);
      valid.set(name, vol);
    } else {
      appendAll(errors, el);
    }
    if (ephemeralPVCs && isObj(vol.persistentVolumeClaim)) {
      const claim = str(vol.persistentVolumeClaim.claimName);
      if (ephemeralPVCs.has(claim)) {
        errors.push(invalid(child(child(p, 'persistentVolumeClaim'), 'claimName'), claim, 'must not reference a PVC that gets created for an ephemeral volume'));
      }
    }
  }
  return { volumes: valid, errors };
}
