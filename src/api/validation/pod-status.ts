/**
 * Pods on PUT/PATCH pods/x/status: upstream's ValidatePodStatusUpdate
 * (pkg/apis/core/validation), which podStatusStrategy runs instead of
 * ValidatePodUpdate. The spec is not validated: the status strategy has put the
 * stored spec back (generic.ts prepareForStatusUpdate), so a status write can
 * neither change nor break it, and validating all of it again on every kubelet
 * heartbeat of a pod was the cost upstream avoids. Checked: the metadata update,
 * the pod-specific annotations (mirror pod) and status.nominatedNodeName.
 * Not yet: upstream's checks of podIPs/hostIPs, container state transitions
 * and resource claim statuses.
 */
import { FieldError, invalid } from '../field-errors.js';
import { nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validateAnnotationUpdates } from './pod.js';
import { validatePodSpecificAnnotations } from './podtemplate.js';
import { Obj, obj, str } from './util.js';
import { appendAll } from '../append.js';

export function validatePodStatusUpdate(newPod: Obj, oldPod: Obj): FieldError[] {
  const meta = obj(newPod.metadata);
  // As validatePodUpdate checks metadata: the update rules, then the new metadata itself.
  const errs = validateObjectMetaUpdate(newPod.metadata, oldPod.metadata);
  appendAll(errs, validateObjectMeta(meta, true, nameIsDNSSubdomain));
  appendAll(errs, validateAnnotationUpdates(newPod, oldPod));
  appendAll(errs, validatePodSpecificAnnotations(meta.annotations, newPod.spec, 'metadata.annotations'));
  const nominated = str(obj(newPod.status).nominatedNodeName);
  if (nominated && nominated !== str(obj(oldPod.status).nominatedNodeName)) {
    for (const msg of nameIsDNSSubdomain(nominated, false)) errs.push(invalid('status.nominatedNodeName', nominated, msg));
  }
  return errs;
}
