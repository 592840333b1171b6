/** The clusterrole-aggregation controller's factory and public pieces. */
import type { ControllerFactory } from '../types.js';
import { ClusterRoleAggregationController } from './controller.js';

export { ClusterRoleAggregationController, controllerName } from './controller.js';
export { aggregatedRules, rulesEqual } from './aggregate.js';

export const clusterRoleAggregationController: ControllerFactory = (ctx) => new ClusterRoleAggregationController(ctx);
