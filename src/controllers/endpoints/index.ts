/** The Endpoints controller's factory and public pieces. */
import type { ControllerFactory } from '../types.js';
import { EndpointsController } from './controller.js';

export { EndpointsController, controllerName, serviceSelectsPod } from './controller.js';
export {
  computeEndpointSubsets, desiredEndpoints, findPort, podToEndpointAddress, repackSubsets, serviceManagesEndpoints,
  shouldPodBeInEndpoints, truncateSubsets, maxCapacity, annLastChangeTriggerTime, annOverCapacity, labelHeadless,
} from './subsets.js';
export type { EndpointAddress, EndpointPort, EndpointSubset } from './subsets.js';
export { TriggerTimeTracker } from './triggertime.js';

export const endpointsController: ControllerFactory = (ctx) => new EndpointsController(ctx);
