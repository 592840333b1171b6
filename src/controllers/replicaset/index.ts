/** The ReplicaSet controller, which also drives ReplicationControllers, and the pure rules it is built from. */
import type { ControllerFactory } from '../types.js';
import { ReplicaSetController } from './controller.js';
import { replicaSetKind, replicationControllerKind } from './kind.js';

export { ReplicaSetController, podFromTemplate } from './controller.js';
export type { ReplicaSetControllerOptions } from './controller.js';
export { replicaSetKind, replicationControllerKind } from './kind.js';
export type { ReplicaKind } from './kind.js';
export { planManage, calculateStatus, slowStartBatch, burstReplicas, replicaFailure } from './plan.js';
export { podsToDelete, compareRanked, rankByRelatedPodsOnSameNode, podDeletionCostAnnotation } from './rank.js';

export const replicaSetController: ControllerFactory = (ctx) => new ReplicaSetController(ctx, replicaSetKind);
export const replicationControllerController: ControllerFactory = (ctx) => new ReplicaSetController(ctx, replicationControllerKind);
