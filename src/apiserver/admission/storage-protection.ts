/**
 * StorageObjectInUseProtection admission (upstream plugin/pkg/admission/
 * storage/storageobjectinuseprotection): every PersistentVolumeClaim and
 * PersistentVolume created gets the kubernetes.io/pvc-protection or
 * kubernetes.io/pv-protection finalizer, unless it already has it. CREATE of
 * the object itself only (no subresource); it reads nothing, so a create
 * stays one storage write and no read.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import { pvProtectionFinalizer, pvcProtectionFinalizer } from '../../api/storage-protection.js';

const finalizerFor: Record<string, string> = {
  persistentvolumeclaims: pvcProtectionFinalizer,
  persistentvolumes: pvProtectionFinalizer,
};

export function admitStorageObjectInUseProtection(op: 'create' | 'update', info: ResourceInfo, obj: { metadata?: ObjectMeta }): void {
  if (op !== 'create' || info.group !== '') return;
  const finalizer = finalizerFor[info.plural];
  if (!finalizer) return;
  const meta = obj.metadata ?? (obj.metadata = {});
  if ((meta.finalizers ?? []).includes(finalizer)) return;
  meta.finalizers = [...(meta.finalizers ?? []), finalizer];
}
