/** The taint-eviction controller's factory and public pieces. */
import type { ControllerFactory } from '../types.js';
import { TaintEvictionController } from './controller.js';

export { TaintEvictionController, controllerName } from './controller.js';
export type { TaintEvictionOptions } from './controller.js';
export { planPodEviction, getNoExecuteTaints } from './eviction.js';
export type { EvictionPlan, ScheduledEviction } from './eviction.js';

export const taintEvictionController: ControllerFactory = (ctx) => new TaintEvictionController(ctx);
