/** The node lifecycle controller's factory and public pieces. */
import type { ControllerFactory } from '../types.js';
import { NodeLifecycleController } from './controller.js';
import type { NodeLifecycleOptions } from './controller.js';

export { NodeLifecycleController, controllerName, defaultNodeLifecycleOptions } from './controller.js';
export type { NodeLifecycleOptions } from './controller.js';
export { tryUpdateNodeHealth, computeZoneState, getZoneKey } from './health.js';
export type { NodeHealth, HealthResult } from './health.js';
export { conditionTaintsFor, noScheduleTaintPlan, taintSetDiff, swapTaints } from './taints.js';

export const nodeLifecycleController: ControllerFactory = (ctx) => new NodeLifecycleController(ctx);

/** The factory with options (eviction rates, zone thresholds). */
export const nodeLifecycleControllerWith = (opts: Partial<NodeLifecycleOptions>): ControllerFactory => (ctx) => new NodeLifecycleController(ctx, opts);
