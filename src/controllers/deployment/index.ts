/** The Deployment controller and the pure rules it is built from. */
import type { ControllerFactory } from '../types.js';
import { DeploymentController } from './controller.js';

export { DeploymentController } from './controller.js';
export { planNewReplicaSet, planOldReplicaSets, newRSNewReplicas } from './rolling.js';
export type { ScaleAction } from './rolling.js';
export { planScale, proportion, findActiveOrLatest, isSaturated } from './scale.js';
export { calculateStatus, rolloutStatus, deploymentComplete, deploymentProgressing, deploymentTimedOut, stuckRequeueMs } from './status.js';
export {
  computeHash, equalIgnoreHash, resolveFenceposts, maxSurge, maxUnavailable, setNewReplicaSetAnnotations, podTemplateHashLabel,
  revisionAnnotation, revisionHistoryAnnotation, desiredReplicasAnnotation, maxReplicasAnnotation,
} from './util.js';

export const deploymentController: ControllerFactory = (ctx) => new DeploymentController(ctx);
