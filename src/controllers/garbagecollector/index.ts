/** The garbage collector's factory and public pieces. */
import type { ControllerFactory } from '../types.js';
import { GarbageCollectorController } from './controller.js';
import type { GarbageCollectorOptions } from './controller.js';

export { GarbageCollectorController, controllerName, defaultGarbageCollectorOptions } from './controller.js';
export type { GarbageCollectorOptions } from './controller.js';
export { Graph, GraphNode, referencesDiffs, deletionStartsWithFinalizer } from './graph.js';
export type { ObjectIdentity, OwnerReference, Enqueue } from './graph.js';
export { decide, deleteOwnerRefsPatch, unblockOwnerRefsPatch } from './decide.js';
export type { Decision, ClassifiedReferences, DeletionPropagation } from './decide.js';
export { defaultMonitoredResources, resolveKind } from './resources.js';

export const garbageCollectorController: ControllerFactory = (ctx) => new GarbageCollectorController(ctx);

/** The factory with options (monitored resources, workers). */
export const garbageCollectorControllerWith = (opts: Partial<GarbageCollectorOptions>): ControllerFactory => (ctx) => new GarbageCollectorController(ctx, opts);
