/**
 * The clusterrole-aggregation controller: keeps the rules of every ClusterRole
 * with an aggregationRule equal to the union of the rules of the ClusterRoles
 * its selectors match (aggregate.ts). Any ClusterRole change enqueues every
 * aggregated role, as upstream does (there are few of them).
 */
import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, isNotFound, runWorkers } from '../../client/index.js';
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
    try {
      // Go's ClusterRole.rules has no omitempty: no rules at all is `null`, as upstream stores it.
      await this.ctx.clients.resource('clusterroles').update({ ...role, rules: rules.length ? rules : null });
    } catch (e) {
      // Deleted meanwhile: its delete event ends the matter. A conflict retries on fresher data.
      if (!isNotFound(e)) throw e;
    }
  }
}
