/**
 * servicelb: writes status.loadBalancer.ingress of LoadBalancer Services
 * (plan.ts says which and what), so `kubectl get svc` shows an EXTERNAL-IP
 * rather than <pending>. Node changes re-enqueue every handled Service.
 */
import type { Node, Service } from 'kubernetes-types/core/v1.js';
import type { Controller, ControllerContext, ControllerFactory } from '../types.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isNotFound, isConflict } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import { desiredIngress, handlesService, sameIngress } from './plan.js';

export class ServiceLBController implements Controller {
  readonly name = 'servicelb';
  private readonly queue = new WorkQueue();
  private readonly services: Informer;
  private readonly nodes: Informer;
  private readonly logger: Logger;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with('servicelb');
    this.services = ctx.informers.informer('services');
    this.nodes = ctx.informers.informer('nodes');
    const enqueue = (s: Service) => { if (handlesService(s)) this.queue.add(metaKey(s)); };
    this.services.addEventHandler({ add: enqueue, update: (_o, s) => enqueue(s) });
    const all = () => { for (const s of this.services.list()) enqueue(s); };
    this.nodes.addEventHandler({
      add: all, delete: all,
      update: (o: Node, n: Node) => { if (JSON.stringify(o.status?.addresses) !== JSON.stringify(n.status?.addresses) || o.spec?.unschedulable !== n.spec?.unschedulable) all(); },
    });
  }

  run(): void {
    void runWorkers(this.queue, this.ctx.config.workers, (key) => this.sync(key),
      (key, err) => (isConflict(err) ? this.logger.debug : this.logger.warn)('sync failed', { service: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  async sync(key: string): Promise<void> {
    const svc: Service | undefined = this.services.get(key);
    if (!svc || !handlesService(svc)) return;
    const ingress = desiredIngress(svc, this.nodes.list());
    if (sameIngress(svc.status?.loadBalancer?.ingress, ingress)) return;
    try {
      await this.ctx.clients.resource('services').patch(svc.metadata!.namespace, svc.metadata!.name!,
        { status: { loadBalancer: { ingress } } }, 'merge', 'status');
      this.logger.info('updated load balancer ingress', { service: key, ingress: ingress.map((i) => i.ip) });
    } catch (e) { if (!isNotFound(e)) throw e; }
  }
}

export const serviceLBController: ControllerFactory = (ctx) => new ServiceLBController(ctx);
