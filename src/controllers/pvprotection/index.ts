/** The pv-protection controller. */
export { pvProtectionController, PVProtectionController, controllerName } from './controller.js';
export { planVolume, volumeIsBeingUsed } from './plan.js';
export type { VolumeAction } from './plan.js';
