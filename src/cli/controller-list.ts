/** The controllers k8ts runs, by the names `--controllers` takes. */
import type { Controller, ControllerContext, ControllerFactory } from '../controllers/types.js';
import { daemonSetController } from '../controllers/daemonset/index.js';
import { statefulSetController } from '../controllers/statefulset/index.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { persistentVolumeController } from '../controllers/volume/index.js';
import { endpointsController } from '../controllers/endpoints/index.js';
import { garbageCollectorController } from '../controllers/garbagecollector/index.js';
import { nodeLifecycleController } from '../controllers/nodelifecycle/index.js';
import { taintEvictionController } from '../controllers/tainteviction/index.js';
import { PodGCController } from '../controllers/podgc/index.js';
import { disruptionController } from '../controllers/disruption/index.js';
import { endpointSliceController, endpointSliceMirroringController } from '../controllers/endpointslice/index.js';

export const controllerFactories: Record<string, ControllerFactory> = {
  daemonset: daemonSetController,
  statefulset: statefulSetController,
  'persistentvolume-binder': persistentVolumeController,
  endpoints: endpointsController,
  garbagecollector: garbageCollectorController,
  nodelifecycle: nodeLifecycleController,
  tainteviction: taintEvictionController,
  disruption: disruptionController,
  endpointslice: endpointSliceController,
  endpointslicemirroring: endpointSliceMirroringController,
  podgc: (ctx) => new PodGCController(ctx, { gcCheckPeriodMs: ctx.config.podGCPeriodMs, quarantineTimeMs: ctx.config.podGCQuarantineMs }),
};

/** The default scheduler, wrapped as a controller of the manager. */
export const schedulerFactory: ((ctx: ControllerContext) => Controller) | undefined = (ctx) => {
  const scheduler = new Scheduler({ ...ctx, logger: ctx.logger.with('scheduler') });
  return { name: 'default-scheduler', run: () => scheduler.run(), stop: () => scheduler.stop() };
};
