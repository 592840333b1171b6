/**
 * Pods on create (ValidatePodCreate) and update (ValidatePodUpdate). On update the
 * spec is immutable except container images, activeDeadlineSeconds (set, or
 * lowered), additions to tolerations, removal of scheduling gates (and, while
 * gated, additions to nodeSelector), and terminationGracePeriodSeconds going
 * from negative to 1. Binding (spec.nodeName) goes through the binding
 * subresource, which does not run these rules, as upstream.
 */
import { FieldError, forbidden, invalid, required } from '../field-errors.js';
import { inclusiveRangeError, nameIsDNSSubdomain } from '../names.js';
import { validateContainersOnlyForPod } from './container.js';
import { specDiff } from './diff.js';
import { goStringMap } from './govalue.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validatePodSpec } from './podspec.js';
import { mirrorPodAnnotation, validatePodSpecificAnnotations } from './podtemplate.js';
import { validateTolerations } from './tolerations.js';
import { Obj, arr, child, clone, deepEqual, has, index, isObj, key, obj, str, strMap } from './util.js';
import { appendAll } from '../append.js';

const updatablePodSpecFields = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** validatePodMetadataAndSpec. */
export function validatePodMetadataAndSpec(pod: Obj): FieldError[] {
  const meta = obj(pod.metadata);
  const spec = obj(pod.spec);
  const errs = validateObjectMeta(meta, true, nameIsDNSSubdomain);
  // A pod without annotations or init containers has nothing for their checks (validatePodSpec's reason).
  if (has(meta.annotations)) appendAll(errs, validatePodSpecificAnnotations(meta.annotations, spec, 'metadata.annotations'));
  appendAll(errs, validatePodSpec(spec, str(meta.name), 'spec', { resourceIsPod: true }));
  if (!str(spec.serviceAccountName)) {
    arr(spec.volumes).forEach((v, vi) => {
      arr(obj(obj(v).projected).sources).forEach((s, si) => {
        if (isObj(obj(s).serviceAccountToken)) {
          errs.push(forbidden(`spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`, 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  appendAll(errs, validateContainersOnlyForPod(spec.containers, 'spec.containers'));
  if (has(spec.initContainers)) appendAll(errs, validateContainersOnlyForPod(spec.initContainers, 'spec.initContainers'));
  return errs;
}

export function validatePodCreate(pod: Obj): FieldError[] {
  const spec = obj(pod.spec);
  const errs = validatePodMetadataAndSpec(pod);
  if (arr(spec.ephemeralContainers).length > 0) errs.push(forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (str(spec.nodeName) && arr(spec.schedulingGates).length > 0) {
    errs.push(forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

/** ValidatePodSpecificAnnotationUpdates: the mirror-pod annotation cannot be added, changed or removed. */
export function validateAnnotationUpdates(newPod: Obj, oldPod: Obj): FieldError[] {
  const n = strMap(obj(newPod.metadata).annotations);
  const o = strMap(obj(oldPod.metadata).annotations);
  const path = 'metadata.annotations';
  const errs: FieldError[] = [];
  if (mirrorPodAnnotation in o && n[mirrorPodAnnotation] !== o[mirrorPodAnnotation]) {
    errs.push(forbidden(key(path, mirrorPodAnnotation), 'may not remove or update mirror pod annotation'));
  }
  if (mirrorPodAnnotation in n && !(mirrorPodAnnotation in o)) errs.push(forbidden(key(path, mirrorPodAnnotation), 'may not add mirror pod annotation'));
  return errs;
}

/** ValidateContainerUpdates: same count; images required and unpadded. */
function validateContainerUpdates(newList: unknown, oldList: unknown, path: string): { errs: FieldError[]; stop: boolean } {
  if (arr(newList).length !== arr(oldList).length) return { errs: [forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  arr(newList).forEach((c, i) => {
    const image = str(obj(c).image);
    if (!image) errs.push(required(child(index(path, i), 'image')));
    if (image.trim() !== image) errs.push(invalid(child(index(path, i), 'image'), image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

/** validateOnlyAddedTolerations: every old toleration is still there (tolerationSeconds may change). */
function validateOnlyAddedTolerations(newList: unknown, oldList: unknown, path: string): FieldError[] {
  for (const old of arr(oldList)) {
    const found = arr(newList).some((t) => deepEqual({ ...obj(old), tolerationSeconds: obj(t).tolerationSeconds }, obj(t)));
    if (!found) return [forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(newList, path);
}

function validateOnlyDeletedSchedulingGates(newGates: unknown, oldGates: unknown, path: string): FieldError[] {
  const old = new Set(arr(oldGates).map((g) => str(obj(g).name)));
  return arr(newGates).flatMap((g, i) => {
    const name = str(obj(g).name);
    return old.has(name) ? [] : [forbidden(child(index(path, i), 'name'), `only deletion is allowed, but found new scheduling gate '${name}'`)];
  });
}

function validateActiveDeadlineUpdate(n: Obj, o: Obj): FieldError[] | undefined {
  const path = 'spec.activeDeadlineSeconds';
  if (has(n.activeDeadlineSeconds)) {
    const v = n.activeDeadlineSeconds;
    if (v < 0 || v > 2147483647) return [invalid(path, v, inclusiveRangeError(0, 2147483647))];
    if (has(o.activeDeadlineSeconds) && o.activeDeadlineSeconds < v) return [invalid(path, v, 'must be less than or equal to previous value')];
  } else if (has(o.activeDeadlineSeconds)) {
    return [invalid(path, 'null', 'must not update from a positive integer to nil value')];
  }
  return undefined;
}

/** The new spec with every updatable field put back to its old value. */
function mungeSpec(n: Obj, o: Obj, errs: FieldError[]): Obj {
  const m = clone(n);
  arr(m.containers).forEach((c, i) => { c.image = obj(arr(o.containers)[i]).image; });
  arr(m.initContainers).forEach((c, i) => { c.image = obj(arr(o.initContainers)[i]).image; });
  m.activeDeadlineSeconds = o.activeDeadlineSeconds;
  m.schedulingGates = o.schedulingGates;
  m.tolerations = o.tolerations;
  if (typeof o.terminationGracePeriodSeconds === 'number' && o.terminationGracePeriodSeconds < 0 && m.terminationGracePeriodSeconds === 1) {
    m.terminationGracePeriodSeconds = o.terminationGracePeriodSeconds;
  }
  if (arr(o.schedulingGates).length > 0 && !deepEqual(m.nodeSelector, o.nodeSelector)) {
    const oldSel = strMap(o.nodeSelector);
    const newSel = strMap(m.nodeSelector);
    if (Object.entries(oldSel).some(([k, v]) => newSel[k] !== v)) {
      errs.push(invalid('spec.nodeSelector', goStringMap(m.nodeSelector), 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'));
    }
    m.nodeSelector = o.nodeSelector;
  }
  return m;
}

export function validatePodUpdate(newPod: Obj, oldPod: Obj): FieldError[] {
  const n = obj(newPod.spec);
  const o = obj(oldPod.spec);
  const errs = [
    ...validateObjectMetaUpdate(newPod.metadata, oldPod.metadata),
    ...validatePodMetadataAndSpec(newPod),
    ...validateAnnotationUpdates(newPod, oldPod),
  ];
  for (const field of ['containers', 'initContainers']) {
    const r = validateContainerUpdates(n[field], o[field], `spec.${field}`);
    appendAll(errs, r.errs);
    if (r.stop) return errs;
  }
  const deadline = validateActiveDeadlineUpdate(n, o);
  if (deadline) {
    appendAll(errs, deadline);
    if (deadline[0].detail !== 'must not update from a positive integer to nil value') return errs;
  }
  appendAll(errs, validateOnlyAddedTolerations(n.tolerations, o.tolerations, 'spec.tolerations'));
  appendAll(errs, validateOnlyDeletedSchedulingGates(n.schedulingGates, o.schedulingGates, 'spec.schedulingGates'));
  if (deepEqual(n, o)) return errs;
  const munged = mungeSpec(n, o, errs);
  if (!deepEqual(munged, o)) {
    errs.push(forbidden('spec', `pod updates may not change fields other than ${updatablePodSpecFields.join(',')}\n${specDiff('core.PodSpec', o, munged)}`));
  }
  return errs;
}
