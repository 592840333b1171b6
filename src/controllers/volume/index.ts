/**
 * The persistent-volume controller with the built-in local-path provisioner:
 * factory and public pieces. The default factory uses /var/lib/k8ts/storage
 * and makes directories only for the node named like this host; the CLI or a
 * test passes `makePersistentVolumeController({ basePath })` for another base.
 */
import type { ControllerFactory } from '../types.js';
import { PersistentVolumeController } from './controller.js';
import { resolveOptions } from './options.js';
import type { PersistentVolumeControllerOptions } from './options.js';

export { PersistentVolumeController, controllerName } from './controller.js';
export type { PersistentVolumeControllerOptions } from './options.js';
export { resolveOptions } from './options.js';
export {
  planClaimSync, planVolumeSync, planReclaim, claimBoundToVolume, claimStatusFor, volumeWithPhase, volumeUnbound, volumeSatisfiesClaim,
} from './binder.js';
export type { ClaimAction, VolumeAction, ReclaimAction } from './binder.js';
export {
  localPathProvisionerName, defaultStorageClassName, defaultLocalPathBase, localPathStorageClass, buildLocalPathVolume,
  provisioningRefusal, pickNodeForImmediateClaim, volumeNodeName, volumeNameForClaim, volumePathFor, LocalPathDirectories,
} from './provisioner.js';

export function makePersistentVolumeController(opts: Partial<PersistentVolumeControllerOptions> = {}): ControllerFactory {
  const resolved = resolveOptions(opts);
  return (ctx) => new PersistentVolumeController(ctx, resolved);
}

export const persistentVolumeController: ControllerFactory = makePersistentVolumeController();
