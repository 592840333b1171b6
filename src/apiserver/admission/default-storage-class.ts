/**
 * DefaultStorageClass admission: a PersistentVolumeClaim created without a
 * storageClassName gets the class annotated storageclass.kubernetes.io/is-default-class.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { admitDefaultStorageClass } from '../../api/volumebinding.js';
import type { Registry } from '../../registry/registry.js';

export function defaultStorageClassAdmission(registry: () => Registry) {
  return async (op: 'create' | 'update', info: ResourceInfo, obj: any): Promise<void> => {
    if (op !== 'create' || info.group !== '' || info.plural !== 'persistentvolumeclaims') return;
    if (obj.spec?.storageClassName !== undefined) return;
    const classes = await registry().store('storage.k8s.io', 'v1', 'storageclasses')!.list(undefined);
    admitDefaultStorageClass(obj, classes.items);
  };
}
