/**
 * The resourcequota controller (upstream pkg/controller/resourcequota):
 * keeps every ResourceQuota's status.hard equal to spec.hard and
 * status.used equal to what its namespace's objects use (usage.ts).
 *
 * Admission charges creates to status.used itself, so, as upstream, a quota
 * is recounted only when its spec.hard differs from status.hard (new or
 * edited quotas), at start, and on replenishment: an object deleted, or a
 * pod that finished (its compute resources are free again). Recounting on
 * every create would race admission's charges (a recount that has not seen
 * the newest object yet would hand its units out twice).
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { Informer, ResourceClient } from '../../client/index.js';
import { ResourceClient as Client, WorkQueue, isNotFound, metaKey, runWorkers } from '../../client/index.js';
import { parseResourceList, podCountsCompute, resourceListJSON } from '../../api/quota/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { QuotaResource, quotaStatus, resourcesToCount } from './usage.js';

export const controllerName = 'resourcequota-controller';
const namespaceIndex = 'metadata.namespace';
const byNamespace = (o: any) => [o.metadata.namespace ?? ''];
const informed = ['pods', 'services', 'persistentvolumeclaims', 'configmaps', 'secrets'] as const;

const canonical = (list: Record<string, string> | undefined) => resourceListJSON(parseResourceList(list));
const sameStatus = (a: Record<string, string> | undefined, b: Record<string, string>) => JSON.stringify(a ?? {}) === JSON.stringify(b);

export class ResourceQuotaController implements Controller {
  readonly name = controllerName;
  private readonly logger: Logger;
  private readonly quotas: Informer;
  private readonly informers = new Map<string, Informer>();
  private readonly queue = new WorkQueue();
  /** Preferred versions of API groups, for `count/<resource>.<group>` of kinds without an informer. */
  private readonly groupVersions = new Map<string, string>();

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(controllerName);
    this.quotas = ctx.informers.informer('resourcequotas');
    this.quotas.addIndex(namespaceIndex, byNamespace);
    this.quotas.addEventHandler({
      add: (q) => this.enqueueIfStale(q),
      update: (_o, q) => this.enqueueIfStale(q),
    });
    for (const name of informed) {
      const inf = ctx.informers.informer(name);
      inf.addIndex(namespaceIndex, byNamespace);
      this.informers.set(name, inf);
      inf.addEventHandler({
        delete: (o) => this.enqueueNamespace(o.metadata.namespace),
        update: (old, cur) => {
          if (name === 'pods' && podCountsCompute(old, ctx.clock.now()) && !podCountsCompute(cur, ctx.clock.now())) this.enqueueNamespace(cur.metadata.namespace);
        },
      });
    }
  }

  run(): void {
    this.logger.info('Starting controller', { controller: controllerName });
    for (const q of this.quotas.list()) this.queue.add(metaKey(q));
    void runWorkers(this.queue, this.ctx.config.workers, (k) => this.reconcile(k),
      (key, err) => this.logger.warn('error syncing resource quota', { quota: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  private enqueueIfStale(q: ResourceQuota): void {
    if (!q.status?.hard || !sameStatus(q.status.hard, q.spec?.hard ?? {})) this.queue.add(metaKey(q));
  }

  private enqueueNamespace(namespace: string): void {
    for (const q of this.quotas.byIndex(namespaceIndex, namespace)) this.queue.add(metaKey(q));
  }

  async reconcile(key: string): Promise<void> {
    const quota = this.quotas.get(key) as ResourceQuota | undefined;
    if (!quota) return;
    const namespace = quota.metadata!.namespace!;
    const objects = new Map<QuotaResource, any[]>();
    for (const r of resourcesToCount(quota)) objects.set(r, await this.objectsOf(r, namespace));
    const status = quotaStatus(quota, objects, this.ctx.clock.now());
    // Canonical JSON on both sides: `1000m` and `1` are the same quantity.
    if (sameStatus(canonical(quota.status?.hard), status.hard) && sameStatus(canonical(quota.status?.used), status.used)) return;
    try {
      await this.ctx.clients.resource('resourcequotas').updateStatus({ ...quota, status });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private async objectsOf(r: QuotaResource, namespace: string): Promise<any[]> {
    if (!r.group && this.informers.has(r.plural)) return this.informers.get(r.plural)!.byIndex(namespaceIndex, namespace);
    if (!r.group && r.plural === 'resourcequotas') return this.quotas.byIndex(namespaceIndex, namespace);
    const client = await this.clientFor(r);
    if (!client) return [];
    return (await client.list(namespace)).items;
  }

  /** A client for a resource without an informer, at its group's preferred version (discovery). */
  private async clientFor(r: QuotaResource): Promise<ResourceClient | undefined> {
    let version = r.group ? this.groupVersions.get(r.group) : 'v1';
    if (!version) {
      try {
        const group = await this.ctx.clients.rest.request('GET', `/apis/${r.group}`);
        version = group?.preferredVersion?.version as string;
        this.groupVersions.set(r.group, version);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    }
    return new Client(this.ctx.clients.rest, { group: r.group, version, resource: r.plural, namespaced: true });
  }
}
