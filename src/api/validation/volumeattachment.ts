/**
 * VolumeAttachments (storage.k8s.io/v1), as upstream's ValidateVolumeAttachment
 * with the v1 checks: a CSI driver name as attacher, exactly one source (a
 * PersistentVolume name or an inline spec), a node name, bounded attachment
 * metadata and error messages. The spec never changes once created.
 */
import { FieldError, forbidden, invalid, required, tooLong } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, deepEqual, has, obj, str, validateName } from './util.js';
import { validateCSIDriverName } from './volumes.js';
import { appendAll } from '../append.js';

const maxAttachedVolumeMetadataSize = 256 * (1 << 10);
const maxVolumeErrorMessageSize = 1024;

export function validateVolumeAttachmentCreate(va: Obj): FieldError[] {
  const errs = validateObjectMeta(va.metadata, false, nameIsDNSSubdomain);
  const spec = obj(va.spec);
  const attacher = str(spec.attacher);
  if (!attacher) errs.push(required('spec.attacher'));
  appendAll(errs, validateSource(obj(spec.source)));
  appendAll(errs, validateName(str(spec.nodeName), 'spec.nodeName', nameIsDNSSubdomain));
  appendAll(errs, validateStatus(obj(va.status)));
  // ValidateVolumeAttachmentV1: what v1 adds to the internal checks.
  appendAll(errs, validateCSIDriverName(attacher, 'spec.attacher'));
  const pv = obj(spec.source).persistentVolumeName;
  if (typeof pv === 'string' && pv) appendAll(errs, validateName(pv, 'spec.source.persistentVolumeName', nameIsDNSSubdomain));
  return errs;
}

export function validateVolumeAttachmentUpdate(va: Obj, old: Obj): FieldError[] {
  const errs = [...validateObjectMetaUpdate(va.metadata, old.metadata), ...validateVolumeAttachmentCreate(va)];
  if (!deepEqual(va.spec, old.spec)) errs.push(invalid('spec', va.spec, 'field is immutable'));
  return errs;
}

function validateSource(source: Obj): FieldError[] {
  const [pv, inline] = [source.persistentVolumeName, source.inlineVolumeSpec];
  const both = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
  if (!has(pv) && !has(inline)) return [required('spec.source', both)];
  if (has(pv) && has(inline)) return [forbidden('spec.source', both)];
  if (has(pv) && !str(pv)) return [required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName')];
  return [];
}

function validateStatus(status: Obj): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(obj(status.attachmentMetadata))) size += k.length + str(v).length;
  if (size > maxAttachedVolumeMetadataSize) errs.push(tooLong('status.attachmentMetadata', maxAttachedVolumeMetadataSize));
  for (const field of ['attachError', 'detachError']) {
    const message = str(obj(status[field]).message);
    // Upstream reports the metadata limit here too (a copy slip kept for the same words).
    if (message.length > maxVolumeErrorMessageSize) errs.push(tooLong(`status.${field}.message`, maxAttachedVolumeMetadataSize));
  }
  return errs;
}
