/** The controllers k8ts runs, by the names `--controllers` takes. */
import { bindWindowFromEnv } from '../scheduler/bind-window.js';
import type { Controller, ControllerContext, ControllerFactory } from '../controllers/types.js';
import { daemonSetController } from '../controllers/daemonset/index.js';
import { statefulSetController } from '../controllers/statefulset/index.js';
import { replicaSetController, replicationControllerController } from '../controllers/replicaset/index.js';
import { deploymentController } from '../controllers/deployment/index.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { persistentVolumeController } from '../controllers/volume/index.js';
import { endpointsController } from '../controllers/endpoints/index.js';
import { garbageCollectorController } from '../controllers/garbagecollector/index.js';
import { nodeLifecycleController } from '../controllers/nodelifecycle/index.js';
import { taintEvictionController } from '../controllers/tainteviction/index.js';
import { PodGCController } from '../controllers/podgc/index.js';
import { jobController } from '../controllers/job/index.js';
import { clusterRoleAggregationController } from '../controllers/clusterroleaggregation/index.js';
import { cronJobController } from '../controllers/cronjob/index.js';
import { ttlAfterFinishedController } from '../controllers/ttlafterfinished/index.js';
import { disruptionController } from '../controllers/disruption/index.js';
import { resourceQuotaController } from '../controllers/resourcequota/index.js';
import { rootCACertPublisherController } from '../controllers/rootcacertpublisher/index.js';
import { tokensController } from '../controllers/serviceaccount/index.js';
import { endpointSliceController, endpointSliceMirroringController } from '../controllers/endpointslice/index.js';
import { bootstrapSignerController, tokenCleanerController } from '../controllers/bootstrap/index.js';
import { nodeIPAMController } from '../controllers/nodeipam/index.js';
import { serviceLBController } from '../controllers/servicelb/index.js';
import { horizontalPodAutoscalerController } from '../controllers/podautoscaler/index.js';
import { pvcProtectionController } from '../controllers/pvcprotection/index.js';
import { pvProtectionController } from '../controllers/pvprotection/index.js';
import { csrApprovingController, csrCleanerController, csrSigningController } from '../controllers/certificates/index.js';

export const controllerFactories: Record<string, ControllerFactory> = {
  daemonset: daemonSetController,
  statefulset: statefulSetController,
  replicaset: replicaSetController,
  deployment: deploymentController,
  replicationcontroller: replicationControllerController,
  'persistentvolume-binder': persistentVolumeController,
  'pvc-protection': pvcProtectionController,
  'pv-protection': pvProtectionController,
  endpoints: endpointsController,
  job: jobController,
  cronjob: cronJobController,
  'ttl-after-finished': ttlAfterFinishedController,
  garbagecollector: garbageCollectorController,
  nodelifecycle: nodeLifecycleController,
  nodeipam: nodeIPAMController,
  tainteviction: taintEvictionController,
  'clusterrole-aggregation': clusterRoleAggregationController,
  disruption: disruptionController,
  resourcequota: resourceQuotaController,
  'root-ca-cert-publisher': rootCACertPublisherController,
  'serviceaccount-token': tokensController,
  endpointslice: endpointSliceController,
  endpointslicemirroring: endpointSliceMirroringController,
  // Off by default in kube-controller-manager, but kubeadm turns both on; k8ts runs them by default.
  tokencleaner: tokenCleanerController,
  bootstrapsigner: bootstrapSignerController,
  csrapproving: csrApprovingController,
  csrsigning: csrSigningController,
  csrcleaner: csrCleanerController,
  // k3s's ServiceLB idea: LoadBalancer Services get the nodes' addresses (no cloud provider here).
  servicelb: serviceLBController,
  horizontalpodautoscaling: horizontalPodAutoscalerController,
  podgc: (ctx) => new PodGCController(ctx, { gcCheckPeriodMs: ctx.config.podGCPeriodMs, quarantineTimeMs: ctx.config.podGCQuarantineMs }),
};

/** The default scheduler, wrapped as a controller of the manager. */
export const schedulerFactory: ((ctx: ControllerContext) => Controller) | undefined = (ctx) => {
  const scheduler = new Scheduler({ ...ctx, logger: ctx.logger.with('scheduler') }, { bindWindow: bindWindowFromEnv(process.env.K8TS_SCHEDULER_BIND_TARGET_MS) });
  return { name: 'default-scheduler', run: () => scheduler.run(), stop: () => scheduler.stop() };
};
