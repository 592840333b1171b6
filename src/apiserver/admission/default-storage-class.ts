/**
 * DefaultStorageClass admission: a PersistentVolumeClaim created without a
 * storageClassName gets the class annotated storageclass.kubernetes.io/is-default-class.
 * The classes come from the watch-fed cache (upstream reads its StorageClass lister).
 */
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import { admitDefaultStorageClass } from '../../api/volumebinding.js';
import type { Lister } from '../../registry/lister.js';

export function defaultStorageClassAdmission(storageClasses: Lister<StorageClass>) {
  return (op: 'create' | 'update', info: ResourceInfo, obj: any): void => {
    if (op !== 'create' || info.group !== '' || info.plural !== 'persistentvolumeclaims') return;
    if (obj.spec?.storageClassName !== undefined) return;
    admitDefaultStorageClass(obj, storageClasses.list());
  };
}
