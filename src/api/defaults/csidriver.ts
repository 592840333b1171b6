/**
 * CSIDriver defaults (storage.k8s.io/v1 SetDefaults_CSIDriver, 1.32 with
 * SELinuxMountReadWriteOncePod on): attach required, no pod info on mount,
 * no storage capacity, fsGroupPolicy ReadWriteOnceWithFSType, Persistent
 * volumes only, no republish, no SELinux mount.
 */
import { Obj, isObj } from './util.js';

export function defaultCSIDriver(driver: Obj): void {
  if (!isObj(driver.spec)) driver.spec = {};
  const spec = driver.spec;
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
}
