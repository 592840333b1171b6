/**
 * The aggregation layer of one API server (kube-aggregator inside
 * kube-apiserver): watch-fed caches of APIServices, Services and
 * EndpointSlices; the availability loop that writes each service-backed
 * APIService's Available condition and keeps its backend's discovery; the
 * proxy for requests under /apis/<group>/<version> of such an APIService;
 * the aggregated groups for discovery.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIResourceList } from 'kubernetes-types/meta/v1.js';
import { apiRegistrationGroup, apiServiceName, type APIService } from '../../api/apiregistration.js';
import { Lister } from '../../registry/lister.js';
import type { Registry } from '../../registry/registry.js';
import type { Logger } from '../../util/log.js';
import { rfc3339 } from '../../util/clock.js';
import type { UserInfo } from '../auth/types.js';
import { checkAvailability } from './availability.js';
import { backendTLS, type ProxyClientCertificate } from './backend-tls.js';
import { aggregatedGroups, apiGroupOf, legacyGroups } from './discovery-merge.js';
import { proxyRequest } from './proxy.js';
import type { ServiceResolver } from '../service-resolver.js';

export interface AggregatorOptions {
  /** The server's Service resolution (shared with the webhooks). */
  resolver: ServiceResolver;
  proxyClient?: ProxyClientCertificate;
  /** How often every service-backed APIService is checked (upstream: on changes and every 30 s). */
  checkPeriodMs?: number;
  logger: Logger;
  now?: () => Date;
}

export class Aggregator {
  private readonly apiServices: Lister<APIService>;
  private readonly discovery = new Map<string, APIResourceList>();
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly registry: Registry, private readonly opts: AggregatorOptions) {
    this.apiServices = new Lister<APIService>(registry.store(apiRegistrationGroup, 'v1', 'apiservices')!, { logger: opts.logger });
  }

  async start(): Promise<void> {
    await this.apiServices.start();
    const loop = () => {
      if (this.closed) return;
      this.checkAll().catch((e) => this.opts.logger.warn('availability check', { err: e })).finally(() => {
        if (!this.closed) this.timer = setTimeout(loop, this.opts.checkPeriodMs ?? 3_000).unref();
      });
    };
    loop();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.apiServices.close();
  }

  /** The APIServices served by another server (they have a service). */
  remote(): APIService[] { return this.apiServices.list().filter((s) => s.spec?.service); }

  /** The service-backed APIService of a group version, if any. */
  remoteFor(group: string, version: string): APIService | undefined {
    const s = this.apiServices.get(undefined, apiServiceName(group, version));
    return s?.spec?.service ? s : undefined;
  }

  /** The legacy discovery of remote groups (APIGroup entries); /apis/<group> for one of them. */
  legacyGroups() { return legacyGroups(this.remote()); }
  groupDoc(group: string) {
    const list = this.remote().filter((s) => s.spec.group === group);
    return list.length ? { kind: 'APIGroup', apiVersion: 'v1', ...legacyGroups(list)[0] ?? apiGroupOf(group, list) } : undefined;
  }

  /** The aggregated discovery entries of remote groups, from their backends' discovery. */
  aggregatedGroups() { return aggregatedGroups(this.remote(), (s) => this.discovery.get(s.metadata!.name!)); }

  /**
   * Proxies a request of a remote group version (upstream's proxyHandler):
   * 503 `service unavailable` while the APIService is not Available or its
   * Service has no endpoint.
   */
  async proxy(req: IncomingMessage, res: ServerResponse, user: UserInfo, svc: APIService): Promise<void> {
    const ref = svc.spec.service!;
    const available = svc.status?.conditions?.find((c) => c.type === 'Available')?.status === 'True';
    const where = this.opts.resolver.route({ namespace: ref.namespace ?? '', name: ref.name ?? '', port: ref.port ?? 443 });
    if (!available || !where.ok) return serviceUnavailable(req, res);
    await proxyRequest(req, res, user, { host: where.host, port: where.port, tls: backendTLS(svc, this.opts.proxyClient, where.serverName) },
      (err) => this.opts.logger.warn('proxy to extension API server failed', { apiservice: svc.metadata?.name, err: err.message }));
  }

  private async checkAll(): Promise<void> {
    for (const svc of this.remote()) {
      if (this.closed) return;
      const result = await checkAvailability(svc, this.opts.resolver, this.opts.proxyClient);
      const name = svc.metadata!.name!;
      if (result.discovery) this.discovery.set(name, result.discovery); else this.discovery.delete(name);
      await this.writeCondition(svc, result.condition);
    }
  }

  private async writeCondition(svc: APIService, cond: Awaited<ReturnType<typeof checkAvailability>>['condition']): Promise<void> {
    const cur = svc.status?.conditions?.find((c) => c.type === 'Available');
    if (cur && cur.status === cond.status && cur.reason === cond.reason && cur.message === cond.message) return;
    const lastTransitionTime = cur && cur.status === cond.status && cur.lastTransitionTime ? cur.lastTransitionTime : rfc3339((this.opts.now ?? (() => new Date()))());
    const store = this.registry.store(apiRegistrationGroup, 'v1', 'apiservices')!;
    await store.guaranteedUpdate(undefined, svc.metadata!.name!, (obj: APIService) => {
      if (!obj.spec.service) return obj;
      obj.status = { conditions: [{ ...cond, lastTransitionTime }] };
      return obj;
    }, { subresource: 'status' }).catch((e) => this.opts.logger.warn('APIService status', { apiservice: svc.metadata?.name, err: e }));
  }
}

function serviceUnavailable(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end('service unavailable\n');
}
