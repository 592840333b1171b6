/**
 * The EndpointSlice mirroring controller (upstream
 * "endpointslicemirroring-controller"): the Endpoints of a Service without
 * a selector (written by hand or by another controller) are mirrored into
 * EndpointSlices of at most 1000 endpoints, labelled with the service name
 * and managed-by endpointslicemirroring-controller.k8s.io, owned by the
 * Endpoints. Endpoints labelled endpointslice.kubernetes.io/skip-mirror=true,
 * leader-election records and Endpoints of services with a selector are not
 * mirrored (their slices are deleted).
 */
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, metaKey, runWorkers } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { mirroredGroups } from './desired.js';
import { planSlices } from './reconcile.js';
import { SliceWriter } from './writer.js';
import { controllerRefTo, sliceLabels, sliceOwner } from './controller.js';

export const mirroringControllerName = 'endpointslicemirroring-controller';
export const mirroringManagedBy = 'endpointslicemirroring-controller.k8s.io';
export const skipMirrorLabel = 'endpointslice.kubernetes.io/skip-mirror';
const leaderAnnotation = 'control-plane.alpha.kubernetes.io/leader';
const maxEndpointsPerSubset = 1000;
const ownerIndex = 'endpoints';

/** Whether the Endpoints are mirrored: its service exists without a selector, and nothing opts it out. */
export function shouldMirror(endpoints: Endpoints | undefined, svc: Service | undefined): boolean {
  if (!endpoints || !svc || svc.spec?.selector != null) return false;
  if (endpoints.metadata?.labels?.[skipMirrorLabel] === 'true') return false;
  return !Object.hasOwn(endpoints.metadata?.annotations ?? {}, leaderAnnotation);
}

export class EndpointSliceMirroringController implements Controller {
  readonly name = mirroringControllerName;
  private readonly logger: Logger;
  private readonly endpoints: Informer;
  private readonly services: Informer;
  private readonly slices: Informer;
  private readonly queue = new WorkQueue();
  private readonly writer: SliceWriter;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(mirroringControllerName);
    this.endpoints = ctx.informers.informer('endpoints');
    this.services = ctx.informers.informer('services');
    this.slices = ctx.informers.informer('endpointslices');
    this.writer = new SliceWriter(ctx.clients, this.slices);
    this.slices.addIndex(ownerIndex, sliceOwner(mirroringManagedBy));
    const enqueue = (o: Endpoints | Service) => this.queue.add(metaKey(o));
    this.endpoints.addEventHandler({ add: enqueue, update: (_o, e: Endpoints) => enqueue(e), delete: enqueue });
    this.services.addEventHandler({ add: enqueue, update: (_o, s: Service) => enqueue(s), delete: enqueue });
    const sliceChanged = (s: EndpointSlice) => { for (const k of sliceOwner(mirroringManagedBy)(s)) this.queue.add(k); };
    this.slices.addEventHandler({ add: sliceChanged, update: (_o, s) => sliceChanged(s), delete: sliceChanged });
  }

  run(): void {
    this.logger.info('Starting controller', { controller: mirroringControllerName });
    void runWorkers(this.queue, this.ctx.config.workers, (k) => this.sync(k),
      (key, err) => this.logger.warn('error mirroring endpoints', { endpoints: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  private async sync(key: string): Promise<void | { requeueAfterMs?: number }> {
    if (this.writer.stale(key)) return { requeueAfterMs: 100 };
    const [namespace] = key.split('/');
    const ep: Endpoints | undefined = this.endpoints.get(key);
    const existing: EndpointSlice[] = this.slices.byIndex(ownerIndex, key);
    if (!shouldMirror(ep, this.services.get(key))) {
      if (existing.length) await this.writer.apply(key, namespace, { create: [], update: [], delete: existing });
      else this.writer.forget(key);
      return;
    }
    const mirrored = ep!; // shouldMirror is false without it
    const plan = planSlices(existing, mirroredGroups(mirrored), {
      namespace, generateName: `${mirrored.metadata!.name}-`, labels: sliceLabels(mirrored, mirroringManagedBy), ownerReference: controllerRefTo(mirrored, 'Endpoints'),
      maxEndpointsPerSlice: maxEndpointsPerSubset,
    });
    try {
      await this.writer.apply(key, namespace, plan);
    } catch (e) {
      if ((e as { code?: number } | undefined)?.code === 403 && /being terminated/.test((e as Error).message)) return;
      throw e;
    }
  }
}
