/** The EndpointSlice and EndpointSlice mirroring controllers' factories and public pieces. */
import type { ControllerFactory } from '../types.js';
import { EndpointSliceController } from './controller.js';
import { EndpointSliceMirroringController } from './mirroring.js';

export { EndpointSliceController, controllerName, managedBy, labelManagedBy, labelServiceName, maxEndpointsPerSlice } from './controller.js';
export { EndpointSliceMirroringController, mirroringControllerName, mirroringManagedBy, shouldMirror, skipMirrorLabel } from './mirroring.js';
export { desiredServiceGroups, mirroredGroups, serviceHasSlices, serviceSelectsPod } from './desired.js';
export type { EndpointGroup } from './desired.js';
export { planSlices } from './reconcile.js';
export type { SlicePlan, SliceTemplate } from './reconcile.js';

export const endpointSliceController: ControllerFactory = (ctx) => new EndpointSliceController(ctx);
export const endpointSliceMirroringController: ControllerFactory = (ctx) => new EndpointSliceMirroringController(ctx);
