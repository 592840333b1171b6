/** ControllerRevisions (data required, revision >= 0, data immutable) and pod Bindings (target is a Node by name). */
import { FieldError, notSupported, required } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, has, immutable, nonNegative, obj, str } from './util.js';
import { appendAll } from '../append.js';

export function validateControllerRevisionCreate(cr: Obj): FieldError[] {
  const errs = validateObjectMeta(cr.metadata, true, nameIsDNSSubdomain);
  if (!has(cr.data)) errs.push(required('data', 'data is mandatory'));
  appendAll(errs, nonNegative(cr.revision, 'revision'));
  return errs;
}

export const validateControllerRevisionUpdate = (cr: Obj, old: Obj) => [
  ...validateObjectMetaUpdate(cr.metadata, old.metadata),
  ...validateControllerRevisionCreate(cr),
  ...immutable(cr.data, old.data, 'data'),
];

/** ValidatePodBinding. */
export function validateBindingCreate(b: Obj): FieldError[] {
  const target = obj(b.target);
  const errs: FieldError[] = [];
  if (str(target.kind) && target.kind !== 'Node') errs.push(notSupported('target.kind', str(target.kind), ['Node', '<empty>']));
  if (!str(target.name)) errs.push(required('target.name'));
  return errs;
}
