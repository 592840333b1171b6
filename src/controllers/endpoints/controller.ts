/**
 * The Endpoints controller (upstream "endpoints-controller"): one Endpoints
 * object per Service with a selector, headless services included, listing
 * the selected pods' addresses (see subsets.ts for the rules).
 *
 * The queue holds service keys. Pod changes that matter to endpoints
 * (labels, IPs, readiness, node, hostname/subdomain, deletion, phase) enqueue
 * every service of the namespace that selects the old or the new pod; a
 * deleted Endpoints enqueues its service so it comes back. At start,
 * Endpoints without a Service are deleted (checkLeftoverEndpoints), except
 * leader-election records.
 */
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, isAlreadyExists, isConflict, isNotFound, metaKey, runWorkers } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { podIsReady } from '../../api/pods.js';
import { computeEndpointSubsets, desiredEndpoints, serviceManagesEndpoints } from './subsets.js';
import { TriggerTimeTracker } from './triggertime.js';

export const controllerName = 'endpoints-controller';
const namespaceIndex = 'metadata.namespace';
const leaderAnnotation = 'control-plane.alpha.kubernetes.io/leader';

const byNamespace = (o: { metadata?: ObjectMeta }) => [o.metadata?.namespace ?? ''];

const rvNewer = (a: Endpoints, b: Endpoints) => {
  const [ra, rb] = [a.metadata?.resourceVersion ?? '', b.metadata?.resourceVersion ?? ''];
  return /^\d+$/.test(ra) && /^\d+$/.test(rb) && BigInt(ra) > BigInt(rb);
};

/** Selector.Matches for a service's map selector. */
export function serviceSelectsPod(svc: Service, pod: Pod): boolean {
  const sel = svc.spec?.selector;
  if (sel == null) return false;
  const labels = pod.metadata?.labels ?? {};
  return Object.entries(sel).every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v);
}

/** What of a pod the Endpoints depend on (podEndpointsChanged). */
function podEndpointState(pod: Pod): string {
  return JSON.stringify([
    pod.metadata?.labels ?? {}, pod.metadata?.deletionTimestamp ?? null, pod.status?.podIP ?? '', pod.status?.podIPs ?? [],
    pod.spec?.nodeName ?? '', pod.spec?.hostname ?? '', pod.spec?.subdomain ?? '', podIsReady(pod), pod.status?.phase ?? '',
  ]);
}

export class EndpointsController implements Controller {
  readonly name = controllerName;
  private readonly logger: Logger;
  private readonly services: Informer;
  private readonly pods: Informer;
  private readonly endpoints: Informer;
  private readonly queue = new WorkQueue();
  private readonly triggers = new TriggerTimeTracker();
  /** Our last write per key, newer than the informer until it catches up. */
  private readonly written = new Map<string, Endpoints>();

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(controllerName);
    this.services = ctx.informers.informer('services');
    this.pods = ctx.informers.informer('pods');
    this.endpoints = ctx.informers.informer('endpoints');
    this.services.addIndex(namespaceIndex, byNamespace);
    this.pods.addIndex(namespaceIndex, byNamespace);
    this.services.addEventHandler({
      add: (s: Service) => this.queue.add(metaKey(s)),
      update: (_o, s: Service) => this.queue.add(metaKey(s)),
      delete: (s: Service) => this.queue.add(metaKey(s)),
    });
    this.pods.addEventHandler({
      add: (p: Pod) => this.enqueueServicesOf(p),
      update: (o: Pod, p: Pod) => { if (podEndpointState(o) !== podEndpointState(p)) this.enqueueServicesOf(p, o); },
      delete: (p: Pod) => this.enqueueServicesOf(p),
    });
    this.endpoints.addEventHandler({
      delete: (e: Endpoints) => { this.written.delete(metaKey(e)); if (this.services.get(metaKey(e))) this.queue.add(metaKey(e)); },
    });
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    this.checkLeftoverEndpoints();
    void runWorkers(this.queue, this.ctx.config.workers, (k) => this.syncService(k),
      (key, err) => this.logger.warn('error syncing endpoints', { service: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  private enqueueServicesOf(pod: Pod, oldPod?: Pod): void {
    for (const svc of this.services.byIndex(namespaceIndex, pod.metadata!.namespace!) as Service[]) {
      if (serviceSelectsPod(svc, pod) || (oldPod && serviceSelectsPod(svc, oldPod))) this.queue.add(metaKey(svc));
    }
  }

  private checkLeftoverEndpoints(): void {
    for (const ep of this.endpoints.list() as Endpoints[]) {
      if (Object.hasOwn(ep.metadata?.annotations ?? {}, leaderAnnotation)) continue;
      if (!this.services.get(metaKey(ep))) this.queue.add(metaKey(ep));
    }
  }

  private currentEndpoints(key: string): Endpoints | undefined {
    const cached: Endpoints | undefined = this.endpoints.get(key);
    const mine = this.written.get(key);
    if (!mine) return cached;
    if (cached && !rvNewer(mine, cached)) {
      this.written.delete(key);
      return cached;
    }
    return mine;
  }

  private async syncService(key: string): Promise<void> {
    const [namespace, name] = key.split('/');
    const client = this.ctx.clients.resource('endpoints');
    const svc: Service | undefined = this.services.get(key);
    if (!svc) {
      this.triggers.delete(key);
      this.written.delete(key);
      try { await client.delete(namespace, name); } catch (e) { if (!isNotFound(e)) throw e; }
      return;
    }
    if (!serviceManagesEndpoints(svc)) return;
    // The labels asked first: the namespace's other pods, kept cold by the informer, are not decoded.
    const selected = (labels: Readonly<Record<string, string>> | undefined) => serviceSelectsPod(svc, { metadata: { labels: labels as Record<string, string> | undefined } });
    const pods = (this.pods.byIndex(namespaceIndex, namespace, selected) as Pod[]).filter((p) => serviceSelectsPod(svc, p));
    const subsets = computeEndpointSubsets(svc, pods);
    const trigger = this.triggers.compute(svc, pods);
    const current = this.currentEndpoints(key);
    const next = desiredEndpoints(svc, current, subsets, trigger);
    if (!next) return;
    try {
      const saved: Endpoints = current ? await client.update(next) : await client.create(namespace, next);
      this.written.set(key, saved);
    } catch (e) {
      // A namespace being torn down refuses new content; its service goes too.
      if ((e as { code?: number } | undefined)?.code === 403 && /being terminated/.test((e as Error).message)) return;
      if (isAlreadyExists(e) || isConflict(e)) this.written.delete(key);
      throw e;
    }
  }
}
