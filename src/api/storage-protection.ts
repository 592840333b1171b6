/**
 * Storage Object in Use Protection (upstream pkg/volume/util's finalizer
 * names and pkg/controller/volume/protectionutil): a PVC a pod uses and a PV
 * bound to a claim carry a finalizer, added by the StorageObjectInUseProtection
 * admission plugin on create (and by the controllers for objects made before
 * it ran), which the pvc-protection and pv-protection controllers remove
 * once the object is being deleted and no longer in use.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';

interface WithMeta { metadata?: ObjectMeta }

/** Being deleted and still holding the finalizer: the controller decides whether to let it go. */
export const isDeletionCandidate = (obj: WithMeta, finalizer: string): boolean =>
  !!obj.metadata?.deletionTimestamp && (obj.metadata.finalizers ?? []).includes(finalizer);

/** Not being deleted and without the finalizer: it should get one. */
export const needToAddFinalizer = (obj: WithMeta, finalizer: string): boolean =>
  !obj.metadata?.deletionTimestamp && !(obj.metadata?.finalizers ?? []).includes(finalizer);

/** Whether an add or update event gives a protection controller work: rule 1 or rule 2 may apply. */
export const needsProtectionSync = (obj: WithMeta, finalizer: string): boolean =>
  needToAddFinalizer(obj, finalizer) || isDeletionCandidate(obj, finalizer);

/** A copy of the object with the finalizer present (add) or absent, the others kept in order. */
export function withFinalizer<T extends WithMeta>(obj: T, finalizer: string, add: boolean): T {
  const clone = structuredClone(obj);
  const meta = clone.metadata ?? (clone.metadata = {});
  const rest = (meta.finalizers ?? []).filter((f) => f !== finalizer);
  meta.finalizers = add ? [...rest, finalizer] : rest;
  return clone;
}
