/** The pvc-protection controller. */
export { pvcProtectionController, PVCProtectionController, controllerName } from './controller.js';
export { planClaim, podUsesPVC, podIsShutDown, podClaimNames, claimKeysToSync, isPodTerminated, ephemeralClaimName } from './plan.js';
export type { ClaimAction } from './plan.js';
