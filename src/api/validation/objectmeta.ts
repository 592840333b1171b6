/**
 * ObjectMeta on create and update (apimachinery api/validation/objectmeta.go plus
 * core's finalizer-name rule). Namespace presence is the registry's business: it
 * fills the namespace from the request path (and clears it for cluster-scoped kinds)
 * before validation, so only a given namespace's format is checked here.
 */
import { FieldError, forbidden, invalid, required, tooLong } from '../field-errors.js';
import { NameValidator, isQualifiedName, validateNamespaceName } from '../names.js';
import { goJSON, goStringSlice, goTime } from './govalue.js';
import { validateLabels } from './labels.js';
import { arr, child, fieldImmutableErrorMsg, has, immutable, index, nonNegative, obj, str, strMap, validateName } from './util.js';
import { appendAll } from '../append.js';

export const totalAnnotationSizeLimitB = 256 * (1 << 10);
const standardFinalizers = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** ValidateAnnotations: keys are qualified names (case-insensitive); total size at most 256 KiB. */
export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(strMap(annotations))) {
    appendAll(errs, isQualifiedName(k.toLowerCase()).map((msg) => invalid(path, k, msg)));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > totalAnnotationSizeLimitB) errs.push(tooLong(path, totalAnnotationSizeLimitB));
  return errs;
}

/** The group/version part of an apiVersion, or undefined when it does not parse. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return undefined;
}

function validateOwnerReference(ref: unknown, path: string): FieldError[] {
  const r = obj(ref);
  const errs: FieldError[] = [];
  const gv = parseGroupVersion(str(r.apiVersion)) ?? { group: '', version: '' };
  if (!gv.version) errs.push(invalid(child(path, 'apiVersion'), str(r.apiVersion), 'version must not be empty'));
  if (!str(r.kind)) errs.push(invalid(child(path, 'kind'), str(r.kind), 'must not be empty'));
  if (!str(r.name)) errs.push(invalid(child(path, 'name'), str(r.name), 'must not be empty'));
  if (!str(r.uid)) errs.push(invalid(child(path, 'uid'), str(r.uid), 'must not be empty'));
  if (gv.group === '' && gv.version === 'v1' && r.kind === 'Event') {
    errs.push(invalid(path, goJSON(r), '/v1, Kind=Event is disallowed from being an owner'));
  }
  return errs;
}

/** ValidateOwnerReferences: at most one controller. */
export function validateOwnerReferences(refs: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of arr(refs)) {
    appendAll(errs, validateOwnerReference(ref, path));
    if (obj(ref).controller === true) {
      const name = `${str(obj(ref).kind)}/${str(obj(ref).name)}`;
      if (firstController) {
        errs.push(invalid(path, goJSON(refs), `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${name}`));
      } else {
        firstController = name;
      }
    }
  }
  return errs;
}

/** ValidateFinalizers (qualified names, not both orphan and foregroundDeletion) plus core's standard-name rule. */
export function validateFinalizers(finalizers: unknown, path: string): FieldError[] {
  const list = arr(finalizers).map(str);
  const errs: FieldError[] = [];
  for (const f of list) appendAll(errs, isQualifiedName(f).map((msg) => invalid(path, f, msg)));
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    errs.push(invalid(path, goStringSlice(list), 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  list.forEach((f, i) => {
    if (!f.includes('/') && !standardFinalizers.has(f)) {
      errs.push(invalid(index(path, i), f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

/**
 * The parts shared by create and update: labels, annotations, owners, finalizers. Each is checked
 * only when present: absent or null, its check finds nothing, and a create without them (most
 * pods) neither runs nor compiles it (bench/RESULTS.md `cold13`).
 */
function validateMetaContent(meta: Record<string, any>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (has(meta.labels)) appendAll(errs, validateLabels(meta.labels, child(path, 'labels')));
  if (has(meta.annotations)) appendAll(errs, validateAnnotations(meta.annotations, child(path, 'annotations')));
  if (has(meta.ownerReferences)) appendAll(errs, validateOwnerReferences(meta.ownerReferences, child(path, 'ownerReferences')));
  if (has(meta.finalizers)) appendAll(errs, validateFinalizers(meta.finalizers, child(path, 'finalizers')));
  return errs;
}

/**
 * ValidateObjectMeta. The registry generates names from generateName before
 * validation, so a missing name means neither was given.
 */
export function validateObjectMeta(metadata: unknown, namespaced: boolean, nameFn: NameValidator, path = 'metadata'): FieldError[] {
  const meta = obj(metadata);
  const errs: FieldError[] = [];
  const generateName = str(meta.generateName);
  if (generateName) appendAll(errs, validateName(generateName, child(path, 'generateName'), nameFn, true));
  const name = str(meta.name);
  if (!name) errs.push(required(child(path, 'name'), 'name or generateName is required'));
  else appendAll(errs, validateName(name, child(path, 'name'), nameFn));
  if (namespaced && str(meta.namespace)) appendAll(errs, validateName(str(meta.namespace), child(path, 'namespace'), validateNamespaceName));
  appendAll(errs, nonNegative(meta.generation, child(path, 'generation')));
  appendAll(errs, validateMetaContent(meta, path));
  return errs;
}

/**
 * ValidateObjectMetaUpdate. Like upstream's BeforeUpdate, a uid, creationTimestamp,
 * deletionTimestamp or deletionGracePeriodSeconds left out of the new object keeps the
 * old value; the store fills resourceVersion before validation, so it is not checked here.
 */
export function validateObjectMetaUpdate(newMetadata: unknown, oldMetadata: unknown, path = 'metadata'): FieldError[] {
  const n = obj(newMetadata);
  const o = obj(oldMetadata);
  const errs: FieldError[] = [];
  if (has(o.deletionTimestamp)) {
    const extra = [...new Set(arr(n.finalizers).map(str))].filter((f) => !arr(o.finalizers).map(str).includes(f)).sort();
    if (extra.length > 0) {
      errs.push(forbidden(child(path, 'finalizers'), `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra).text}`));
    }
  }
  if (typeof n.generation === 'number' && typeof o.generation === 'number' && n.generation < o.generation) {
    errs.push(invalid(child(path, 'generation'), n.generation, 'must not be decremented'));
  }
  const keep = (field: string) => (has(n[field]) ? n[field] : o[field]);
  appendAll(errs, immutable(str(n.name), str(o.name), child(path, 'name')));
  appendAll(errs, immutable(str(n.namespace), str(o.namespace), child(path, 'namespace')));
  appendAll(errs, immutable(str(keep('uid')), str(o.uid), child(path, 'uid')));
  for (const field of ['creationTimestamp', 'deletionTimestamp']) {
    if (!sameInstant(keep(field), o[field])) errs.push(invalid(child(path, field), goTime(keep(field)), fieldImmutableErrorMsg));
  }
  appendAll(errs, immutable(keep('deletionGracePeriodSeconds'), o.deletionGracePeriodSeconds, child(path, 'deletionGracePeriodSeconds')));
  appendAll(errs, validateMetaContent(n, path));
  return errs;
}

function sameInstant(a: unknown, b: unknown): boolean {
  if (!has(a) || !has(b)) return !has(a) && !has(b);
  return new Date(str(a)).getTime() === new Date(str(b)).getTime();
}
