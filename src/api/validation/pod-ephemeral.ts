/**
 * ValidatePodEphemeralContainersUpdate (v1.32): a write through
 * pods/ephemeralcontainers, whose strategy has already put back everything
 * but spec.ephemeralContainers, so only they can differ from the stored pod.
 *
 *  1. The pod as a whole must still be valid (metadata, spec, the new
 *     ephemeral containers' own rules: ephemeral.ts).
 *  2. A static pod's mirror takes none: `[]: Forbidden: static pods do not
 *     support ephemeral containers`, and nothing else is reported.
 *  3. Ephemeral containers are only ever added: one that was there must still
 *     be there ("may not be removed") and unchanged ("may not be changed",
 *     with a diff). Matched by name, since a patch does not keep their order.
 */
import { FieldError, forbidden } from '../field-errors.js';
import { specDiff } from './diff.js';
import { validateObjectMetaUpdate } from './objectmeta.js';
import { validateAnnotationUpdates, validatePodMetadataAndSpec } from './pod.js';
import { mirrorPodAnnotation } from './podtemplate.js';
import { Obj, arr, deepEqual, key, obj, str, strMap } from './util.js';

const specPath = 'spec.ephemeralContainers';

export function validatePodEphemeralContainersUpdate(newPod: Obj, oldPod: Obj): FieldError[] {
  const errs = [
    ...validateObjectMetaUpdate(newPod.metadata, oldPod.metadata),
    ...validatePodMetadataAndSpec(newPod),
    ...validateAnnotationUpdates(newPod, oldPod),
  ];
  if (mirrorPodAnnotation in strMap(obj(oldPod.metadata).annotations)) {
    return [forbidden('[]', 'static pods do not support ephemeral containers')];
  }
  const byName = new Map(arr(obj(newPod.spec).ephemeralContainers).map((c) => [str(obj(c).name), obj(c)]));
  for (const raw of arr(obj(oldPod.spec).ephemeralContainers)) {
    const old = obj(raw);
    const name = str(old.name);
    const now = byName.get(name);
    if (!now) errs.push(forbidden(specPath, `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!deepEqual(old, now)) {
      errs.push(forbidden(key(specPath, name), `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n${specDiff('core.EphemeralContainer', old, now)}`));
    }
  }
  return errs;
}
