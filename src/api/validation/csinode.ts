/**
 * CSINodes (storage.k8s.io/v1), as upstream's ValidateCSINode(Update): named
 * like their Node; each driver once, with a CSI driver name, a node ID of at
 * most 192 characters (upstream allows the long IDs since 1.23), a
 * non-negative volume count and distinct qualified topology keys. A driver
 * already registered cannot be changed, only removed or added.
 */
import { FieldError, duplicate, invalid, required } from '../field-errors.js';
import { isQualifiedName, nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, arr, child, immutable, index, nonNegative, obj, str } from './util.js';
import { validateCSIDriverName } from './volumes.js';
import { appendAll } from '../append.js';

const maxNodeIDLength = 192;

export function validateCSINodeCreate(node: Obj): FieldError[] {
  const errs = validateObjectMeta(node.metadata, false, nameIsDNSSubdomain);
  const seen = new Set<string>();
  arr(obj(node.spec).drivers).forEach((d, i) => appendAll(errs, validateDriver(obj(d), index('spec.drivers', i), seen)));
  return errs;
}

export function validateCSINodeUpdate(node: Obj, old: Obj): FieldError[] {
  const errs = [...validateObjectMetaUpdate(node.metadata, old.metadata), ...validateCSINodeCreate(node)];
  for (const before of arr(obj(old.spec).drivers).map(obj)) {
    for (const after of arr(obj(node.spec).drivers).map(obj)) {
      if (str(before.name) === str(after.name)) appendAll(errs, immutable(after, before, 'spec.drivers'));
    }
  }
  return errs;
}

function validateDriver(d: Obj, path: string, seen: Set<string>): FieldError[] {
  const name = str(d.name);
  const errs = validateCSIDriverName(name, child(path, 'name'));
  const nodeID = str(d.nodeID);
  if (!nodeID) errs.push(required(child(path, 'nodeID')));
  if (nodeID.length > maxNodeIDLength) errs.push(invalid(child(path, 'nodeID'), nodeID, `must be ${maxNodeIDLength} characters or less`));
  appendAll(errs, nonNegative(obj(d.allocatable).count, child(child(path, 'allocatable'), 'count')));
  if (seen.has(name)) errs.push(duplicate(child(path, 'name'), name));
  seen.add(name);
  const keys = new Set<string>();
  for (const key of arr(d.topologyKeys).map(str)) {
    if (!key) errs.push(required(path));
    if (keys.has(key)) errs.push(duplicate(path, key));
    keys.add(key);
    appendAll(errs, isQualifiedName(key).map((msg) => invalid(path, key, msg)));
  }
  return errs;
}
