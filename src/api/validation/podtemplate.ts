/**
 * Pod templates embedded in workloads (ValidatePodTemplateSpec and the
 * ReplicaSet-style template rules shared by Deployments and DaemonSets), plus the
 * pod-specific annotations pods and templates both carry.
 */
import { FieldError, forbidden, invalid, notSupported } from '../field-errors.js';
import { goStringMap } from './govalue.js';
import { Selector, validateLabels } from './labels.js';
import { validateAnnotations } from './objectmeta.js';
import { validatePodSpec } from './podspec.js';
import { arr, child, key, obj, str, strMap } from './util.js';
import { appendAll } from '../append.js';

export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';
const deletionCostAnnotation = 'controller.kubernetes.io/pod-deletion-cost';

/** ValidatePodSpecificAnnotations: mirror pods need a node; the deletion cost is an int32. */
export function validatePodSpecificAnnotations(annotations: unknown, spec: unknown, path: string): FieldError[] {
  const a = strMap(annotations);
  const errs: FieldError[] = [];
  if (mirrorPodAnnotation in a && !str(obj(spec).nodeName)) {
    errs.push(invalid(key(path, mirrorPodAnnotation), a[mirrorPodAnnotation], 'must set spec.nodeName if mirror pod annotation is set'));
  }
  if (deletionCostAnnotation in a) {
    const v = a[deletionCostAnnotation];
    const n = Number(v);
    if (!/^[+-]?[0-9]+$/.test(v) || n < -2147483648 || n > 2147483647) errs.push(invalid(key(path, deletionCostAnnotation), v, 'must be a 32bit integer'));
  }
  return errs;
}

/** ValidatePodTemplateSpec: labels and annotations are reported at `template.labels`, as upstream does. */
export function validatePodTemplateSpec(template: unknown, path: string): FieldError[] {
  const t = obj(template);
  const meta = obj(t.metadata);
  const errs: FieldError[] = [
    ...validateLabels(meta.labels, child(path, 'labels')),
    ...validateAnnotations(meta.annotations, child(path, 'annotations')),
    ...validatePodSpecificAnnotations(meta.annotations, t.spec, child(path, 'annotations')),
    ...validatePodSpec(t.spec, '', child(path, 'spec'), { resourceIsPod: false }),
  ];
  if (arr(obj(t.spec).ephemeralContainers).length > 0) {
    errs.push(forbidden(child(child(path, 'spec'), 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}

/** The selector-vs-template check: `Invalid value: map[string]string{...}: `selector` does not match template `labels``. */
export function selectorMismatch(selector: Selector, template: unknown, path: string): FieldError[] {
  const labels = obj(obj(template).metadata).labels;
  return selector.matches(strMap(labels)) ? [] : [invalid(path, goStringMap(labels), '`selector` does not match template `labels`')];
}

/** ValidatePodTemplateSpecForReplicaSet (also Deployments): matching labels, restartPolicy Always, no activeDeadlineSeconds. */
export function validateTemplateForReplicaSet(template: unknown, selector: Selector, path: string, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!selector.empty) appendAll(errs, selectorMismatch(selector, template, child(child(path, 'metadata'), 'labels')));
  appendAll(errs, validatePodTemplateSpec(template, path));
  appendAll(errs, templateRestartRules(template, path, kind));
  return errs;
}

/** restartPolicy must be Always and activeDeadlineSeconds unset for controller-owned pods. */
export function templateRestartRules(template: unknown, path: string, kind: string): FieldError[] {
  const spec = obj(obj(template).spec);
  const errs: FieldError[] = [];
  if (spec.restartPolicy !== 'Always') errs.push(notSupported(child(child(path, 'spec'), 'restartPolicy'), str(spec.restartPolicy), ['Always']));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(child(child(path, 'spec'), 'activeDeadlineSeconds'), `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}
