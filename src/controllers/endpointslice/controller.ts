/**
 * The EndpointSlice controller (upstream "endpointslice-controller"): for
 * every Service with a selector, EndpointSlices of at most 100 endpoints
 * listing the selected pods (desired.ts), labelled
 * kubernetes.io/service-name=<service> and
 * endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io,
 * owned by the Service (reconcile.ts decides the writes).
 *
 * The queue holds service keys; pod changes enqueue the services selecting
 * the old or new pod; a change to one of our slices by anyone enqueues its
 * service; a sync whose informer has not seen our last writes waits.
 */
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, metaKey, runWorkers } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { desiredServiceGroups, serviceHasSlices, serviceSelectsLabels, serviceSelectsPod } from './desired.js';
import { planSlices } from './reconcile.js';
import { SliceWriter } from './writer.js';

export const controllerName = 'endpointslice-controller';
export const managedBy = 'endpointslice-controller.k8s.io';
export const labelServiceName = 'kubernetes.io/service-name';
export const labelManagedBy = 'endpointslice.kubernetes.io/managed-by';
export const maxEndpointsPerSlice = 100;
const namespaceIndex = 'metadata.namespace';
const ownerIndex = 'service';
const byNamespace = (o: { metadata?: ObjectMeta }) => [o.metadata?.namespace ?? ''];

/** The service a slice of this manager belongs to (index key ns/name). */
export const sliceOwner = (manager: string) => (s: EndpointSlice): string[] => {
  const labels = s.metadata?.labels ?? {};
  return labels[labelManagedBy] === manager && labels[labelServiceName] ? [`${s.metadata!.namespace}/${labels[labelServiceName]}`] : [];
};

/** Labels of a slice: the service's own (upstream copies them), then the two that identify it. */
export function sliceLabels(owner: { metadata?: ObjectMeta }, manager: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(owner.metadata!.labels ?? {}), ...extra, [labelServiceName]: owner.metadata!.name!, [labelManagedBy]: manager };
}

export const controllerRefTo = (o: { metadata?: ObjectMeta }, kind: string): OwnerReference =>
  ({ apiVersion: 'v1', kind, name: o.metadata!.name!, uid: o.metadata!.uid!, controller: true, blockOwnerDeletion: true });

export class EndpointSliceController implements Controller {
  readonly name = controllerName;
  private readonly logger: Logger;
  private readonly services: Informer;
  private readonly pods: Informer;
  private readonly nodes: Informer;
  private readonly slices: Informer;
  private readonly queue = new WorkQueue();
  private readonly writer: SliceWriter;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(controllerName);
    this.services = ctx.informers.informer('services');
    this.pods = ctx.informers.informer('pods');
    this.nodes = ctx.informers.informer('nodes');
    this.slices = ctx.informers.informer('endpointslices');
    this.writer = new SliceWriter(ctx.clients, this.slices);
    this.services.addIndex(namespaceIndex, byNamespace);
    this.pods.addIndex(namespaceIndex, byNamespace);
    this.slices.addIndex(ownerIndex, sliceOwner(managedBy));
    const enqueue = (o: Service) => this.queue.add(metaKey(o));
    this.services.addEventHandler({ add: enqueue, update: (_o, s: Service) => enqueue(s), delete: enqueue });
    this.pods.addEventHandler({ add: (p: Pod) => this.enqueueServicesOf(p), update: (o: Pod, p: Pod) => this.enqueueServicesOf(p, o), delete: (p: Pod) => this.enqueueServicesOf(p) });
    const sliceChanged = (s: EndpointSlice) => { for (const k of sliceOwner(managedBy)(s)) this.queue.add(k); };
    this.slices.addEventHandler({ add: sliceChanged, update: (_o, s) => sliceChanged(s), delete: sliceChanged });
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    void runWorkers(this.queue, this.ctx.config.workers, (k) => this.syncService(k),
      (key, err) => this.logger.warn('error syncing endpoint slices for service', { service: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  private enqueueServicesOf(pod: Pod, oldPod?: Pod): void {
    for (const svc of this.services.byIndex(namespaceIndex, pod.metadata!.namespace!) as Service[]) {
      if (serviceSelectsPod(svc, pod) || (oldPod && serviceSelectsPod(svc, oldPod))) this.queue.add(metaKey(svc));
    }
  }

  private async syncService(key: string): Promise<void | { requeueAfterMs?: number }> {
    if (this.writer.stale(key)) return { requeueAfterMs: 100 };
    const [namespace] = key.split('/');
    const svc: Service | undefined = this.services.get(key);
    const existing: EndpointSlice[] = this.slices.byIndex(ownerIndex, key);
    if (!svc || !serviceHasSlices(svc)) {
      // Deleted services' slices also go by garbage collection (ownerReference); ExternalName and selector-less ones have none of ours.
      if (existing.length) await this.writer.apply(key, namespace, { create: [], update: [], delete: existing });
      else this.writer.forget(key);
      return;
    }
    const pods = (this.pods.byIndex(namespaceIndex, namespace, serviceSelectsLabels(svc)) as Pod[]).filter((p) => serviceSelectsPod(svc, p));
    const groups = desiredServiceGroups(svc, pods, (n) => (n ? this.nodes.get(n) : undefined));
    const headless: Record<string, string> = svc.spec?.clusterIP === 'None' ? { 'service.kubernetes.io/headless': '' } : {};
    const plan = planSlices(existing, groups, {
      namespace, generateName: `${svc.metadata!.name}-`, labels: sliceLabels(svc, managedBy, headless), ownerReference: controllerRefTo(svc, 'Service'),
      maxEndpointsPerSlice, placeholder: svc.spec?.ipFamilies?.[0] ?? 'IPv4',
    });
    try {
      await this.writer.apply(key, namespace, plan);
    } catch (e) {
      // A namespace being torn down refuses new content; its service goes too.
      if ((e as { code?: number } | undefined)?.code === 403 && /being terminated/.test((e as Error).message)) return;
      throw e;
    }
  }
}
