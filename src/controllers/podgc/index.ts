/** The pod garbage collector's factory and public pieces. */
import type { ControllerFactory } from '../types.js';
import { PodGCController } from './controller.js';
import type { PodGCOptions } from './controller.js';

export { PodGCController, controllerName, defaultPodGCOptions } from './controller.js';
export type { PodGCOptions } from './controller.js';
export {
  Quarantine, isPodTerminated, terminatedPodsToDelete, terminatingPodsOnOutOfServiceNodes, unknownNodeNames, unscheduledTerminatingPods,
} from './plan.js';

export const podGCController: ControllerFactory = (ctx) => new PodGCController(ctx);

/** The factory with options (gcCheckPeriodMs, quarantineTimeMs), e.g. shorter periods in tests. */
export const podGCControllerWith = (opts: Partial<PodGCOptions>): ControllerFactory => (ctx) => new PodGCController(ctx, opts);
