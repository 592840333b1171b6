/** Namespaces: DNS-1123 label names and spec.finalizers names. */
import { FieldError, invalid } from '../field-errors.js';
import { isQualifiedName, validateNamespaceName } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, arr, obj, str } from './util.js';
import { appendAll } from '../append.js';

const standardFinalizers = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** validateFinalizerName: a qualified name; unprefixed ones must be standard. */
function validateFinalizerName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => invalid(path, name, msg));
  if (!name.includes('/') && !standardFinalizers.has(name)) {
    errs.push(invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

export function validateNamespaceCreate(ns: Obj): FieldError[] {
  const errs = validateObjectMeta(ns.metadata, false, validateNamespaceName);
  for (const f of arr(obj(ns.spec).finalizers)) appendAll(errs, validateFinalizerName(str(f), 'spec.finalizers'));
  return errs;
}

/** ValidateNamespaceUpdate checks only metadata; spec.finalizers change through the finalize subresource. */
export const validateNamespaceUpdate = (ns: Obj, old: Obj) => validateObjectMetaUpdate(ns.metadata, old.metadata);
