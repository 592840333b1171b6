/** The disruption controller's factory and public pieces. */
import type { ControllerFactory } from '../types.js';
import { DisruptionController } from './controller.js';

export { DisruptionController, controllerName } from './controller.js';
export {
  budgetStatus, buildDisruptedPodMap, countHealthyPods, deletionTimeoutMs, expectedPodCount, expectedScale, failSafeStatus,
} from './budget.js';
export type { Counts, ExpectedCount, ScaleOf } from './budget.js';
export { scaleFinder } from './scale.js';
export { stalePodDisruptionTimeoutMs, staleDisruptionWait, withDisruptionTargetCleared } from './stale.js';

export const disruptionController: ControllerFactory = (ctx) => new DisruptionController(ctx);
