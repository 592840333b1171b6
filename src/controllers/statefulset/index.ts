/** The StatefulSet controller's factory and public pieces. */
import type { ControllerFactory } from '../types.js';
import { StatefulSetController } from './controller.js';

export { StatefulSetController, controllerName } from './controller.js';
export type { StatefulSetControllerOptions } from './controller.js';
export { planStatefulSet, partitionPods, allowsBurst } from './plan.js';
export type { Plan, PlanInput, Step, Action } from './plan.js';
export { computeStatus, completeRollingUpdate, inconsistentStatus, statusObject } from './status.js';
export type { StatefulSetStatus } from './status.js';
export { chooseUpdateRevision, findCurrentRevision, revisionsToTruncate, newRevision, applyRevision } from './revisions.js';
export type { UpdateRevisionChoice } from './revisions.js';
export * from './identity.js';
export * from './claims.js';

export const statefulSetController: ControllerFactory = (ctx) => new StatefulSetController(ctx);
