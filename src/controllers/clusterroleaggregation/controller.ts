/**
 * The clusterrole-aggregation controller: keeps the rules of every ClusterRole
 * with an aggregationRule equal to the union of the rules of the ClusterRoles
 * its selectors match (aggregate.ts). Any ClusterRole change enqueues every
 * aggregated role, as upstream does (there are few of them). The rules are
 * written by server-side apply with force, as upstream's controller writes
 * them since 1.26: no resourceVersion to race on (the bootstrap policy's
 * reconcile and this controller touch the same roles at start-up), and
 * managedFields name this controller as the rules' manager.
 */
import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, runWorkers } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { aggregatedRules, rulesEqual } from './aggregate.js';

export const controllerName = 'clusterrole-aggregation-controller';

export class ClusterRoleAggregationController implements Controller {
  readonly name = controllerName;
  private readonly logger: Logger;
  private readonly roles: Informer;
  private readonly queue = new WorkQueue();

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(controllerName);
    this.roles = ctx.informers.informer('clusterroles');
    const enqueueAll = () => this.enqueueAggregated();
    this.roles.addEventHandler({ add: enqueueAll, update: enqueueAll, delete: enqueueAll });
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    this.enqueueAggregated();
    void runWorkers(this.queue, 1, (k) => this.reconcile(k),
      (key, err) => this.logger.warn('error aggregating clusterrole', { clusterRole: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  private enqueueAggregated(): void {
    for (const r of this.roles.list() as ClusterRole[]) if (r.aggregationRule) this.queue.add(r.metadata!.name!);
  }

  async reconcile(name: string): Promise<void> {
    const role = this.roles.get(name) as ClusterRole | undefined;
    if (!role) return;
    const rules = aggregatedRules(role, this.roles.list() as ClusterRole[]);
    if (!rules || rulesEqual(role.rules, rules)) return;
    // Upstream's apply configuration omits an empty rules list (omitempty): this manager then
    // owns no rules, and the role is stored without any (`rules: null`, Go's ClusterRole.rules has no omitempty).
    const applied: ClusterRole = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, ...(rules.length ? { rules } : {}) };
    // A role deleted between the informer's read and this write is created again with these rules
    // only (an apply creates what is absent), as upstream's controller would do.
    await this.ctx.clients.resource('clusterroles').apply(undefined, name, applied, controllerName, { force: true });
  }
}
