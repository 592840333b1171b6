/**
 * autoscaling/v2 HorizontalPodAutoscalers (v1 objects are validated in their
 * v2 form), and core/v1 PodTemplates, as upstream's ValidateHorizontalPodAutoscaler
 * and ValidatePodTemplate.
 */
import { FieldError, invalid, notSupported, required } from '../field-errors.js';
import { isValidPathSegmentName, nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validatePodTemplateSpec } from './podtemplate.js';
import { Obj, arr, child, has, index, obj, str } from './util.js';
import { appendAll } from '../append.js';

const metricTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];

function validateScaleTargetRef(raw: unknown, path: string): FieldError[] {
  const ref = obj(raw);
  const errs: FieldError[] = [];
  for (const f of ['kind', 'name'] as const) {
    const v = str(ref[f]);
    if (!v) errs.push(required(child(path, f)));
    else appendAll(errs, isValidPathSegmentName(v).map((m) => invalid(child(path, f), v, m)));
  }
  return errs;
}

function validateHPASpec(raw: unknown): FieldError[] {
  const spec = obj(raw);
  const errs = validateScaleTargetRef(spec.scaleTargetRef, 'spec.scaleTargetRef');
  const min = spec.minReplicas;
  if (has(min) && min < 1) errs.push(invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (!(spec.maxReplicas >= 1)) errs.push(invalid('spec.maxReplicas', spec.maxReplicas ?? 0, 'must be greater than 0'));
  else if (has(min) && spec.maxReplicas < min) errs.push(invalid('spec.maxReplicas', spec.maxReplicas, 'must be greater than or equal to `minReplicas`'));
  arr(spec.metrics).forEach((m, i) => {
    const type = str(obj(m).type);
    const p = index('spec.metrics', i);
    if (!type) errs.push(required(child(p, 'type'), 'must specify a metric source type'));
    else if (!metricTypes.includes(type)) errs.push(notSupported(child(p, 'type'), type, metricTypes));
  });
  return errs;
}

export const hpaValidation = {
  create: (hpa: Obj) => [...validateObjectMeta(hpa.metadata, true, nameIsDNSSubdomain), ...validateHPASpec(hpa.spec)],
  update: (hpa: Obj, old: Obj, subresource?: string) => [
    ...validateObjectMetaUpdate(hpa.metadata, old.metadata), ...(subresource === 'status' ? [] : validateHPASpec(hpa.spec)),
  ],
};

const validatePodTemplate = (pt: Obj) => [...validateObjectMeta(pt.metadata, true, nameIsDNSSubdomain), ...validatePodTemplateSpec(pt.template, 'template')];

export const podTemplateValidation = {
  create: validatePodTemplate,
  update: (pt: Obj, old: Obj) => [...validateObjectMetaUpdate(pt.metadata, old.metadata), ...validatePodTemplate(pt)],
};
