/**
 * The root CA certificate publisher (upstream "root-ca-cert-publisher"):
 * keeps a kube-root-ca.crt ConfigMap in every namespace. A namespace added or
 * changed, and a kube-root-ca.crt changed or deleted, queue the namespace;
 * the sync reads the cache and creates or puts back the ConfigMap through the
 * API. A namespace that is gone or terminating is left alone.
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, isNamespaceTerminating, isNotFound } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { planRootCAConfigMap, rootCACertConfigMapName } from './plan.js';

export const controllerName = 'root-ca-cert-publisher';

export class RootCACertPublisher implements Controller {
  readonly name = controllerName;
  private readonly logger: Logger;
  private readonly namespaces: Informer;
  private readonly configMaps: Informer;
  private readonly queue = new WorkQueue();

  constructor(private readonly ctx: ControllerContext, private readonly rootCA: string) {
    this.logger = ctx.logger.with(controllerName);
    this.namespaces = ctx.informers.informer('namespaces');
    this.configMaps = ctx.informers.informer('configmaps');
    this.namespaces.addEventHandler({
      add: (ns) => this.queue.add(ns.metadata.name),
      update: (_old, ns) => this.queue.add(ns.metadata.name),
    });
    const ours = (cm: ConfigMap) => cm.metadata?.name === rootCACertConfigMapName;
    this.configMaps.addEventHandler({
      update: (_old, cm) => { if (ours(cm)) this.queue.add(cm.metadata.namespace); },
      delete: (cm) => { if (ours(cm)) this.queue.add(cm.metadata.namespace); },
    });
  }

  run(): void {
    if (!this.rootCA) { this.logger.warn('no root CA to publish; not starting', { controller: controllerName }); return; }
    this.logger.info('Starting controller', { controller: controllerName });
    void runWorkers(this.queue, this.ctx.config.workers, (ns) => this.syncNamespace(ns),
      (ns, err) => this.logger.warn('error syncing root CA configmap', { namespace: ns, err }));
  }

  stop(): void { this.queue.shutDown(); }

  private async syncNamespace(namespace: string): Promise<void> {
    const ns = this.namespaces.get(namespace);
    if (!ns || ns.metadata.deletionTimestamp) return;
    const action = planRootCAConfigMap(this.configMaps.get(`${namespace}/${rootCACertConfigMapName}`), this.rootCA);
    if (!action) return;
    const client = this.ctx.clients.resource('configmaps');
    try {
      if ('create' in action) await client.create(namespace, action.create);
      else await client.update(action.update);
    } catch (e) {
      // Don't retry a create into a namespace that is gone or terminating.
      if ('create' in action && (isNotFound(e) || isNamespaceTerminating(e))) return;
      throw e;
    }
  }
}
