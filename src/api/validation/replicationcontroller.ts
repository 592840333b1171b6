/**
 * ReplicationControllers (core/v1, upstream ValidateReplicationControllerSpec):
 * replicas and minReadySeconds >= 0, a required non-empty selector (a label
 * map) that the template's labels match, a required pod template with
 * restartPolicy Always.
 */
import { FieldError, required } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validateTemplateForReplicaSet } from './podtemplate.js';
import { Obj, child, isObj, nonNegative, obj, strMap } from './util.js';
import { appendAll } from '../append.js';

export function validateReplicationControllerSpec(specRaw: unknown, path: string): FieldError[] {
  const spec = obj(specRaw);
  const selector = strMap(spec.selector);
  const errs = [...nonNegative(spec.minReadySeconds, child(path, 'minReadySeconds'))];
  if (Object.keys(selector).length === 0) errs.push(required(child(path, 'selector'), ''));
  appendAll(errs, nonNegative(spec.replicas, child(path, 'replicas')));
  if (!isObj(spec.template)) {
    errs.push(required(child(path, 'template'), ''));
    return errs;
  }
  const matches = (labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
  appendAll(errs, validateTemplateForReplicaSet(spec.template, { empty: Object.keys(selector).length === 0, matches }, child(path, 'template'), 'ReplicationController'));
  return errs;
}

export const validateReplicationControllerCreate = (rc: Obj) =>
  [...validateObjectMeta(rc.metadata, true, nameIsDNSSubdomain), ...validateReplicationControllerSpec(rc.spec, 'spec')];

export const validateReplicationControllerUpdate = (rc: Obj, old: Obj) =>
  [...validateObjectMetaUpdate(rc.metadata, old.metadata), ...validateReplicationControllerSpec(rc.spec, 'spec')];
