/**
 * kube-aggregator's autoregister controller, as kube-apiserver runs it: every
 * group version the server serves itself has a local APIService (no
 * service), Available with reason Local. The built-in ones are created at
 * start-up (label `kube-aggregator.kubernetes.io/automanaged: onstart`); the
 * custom resource groups' ones follow the CRDs (label `true`: removed when
 * the group version is no longer served), as the crdRegistrationController
 * does. Group versions served outside the registry (metrics.k8s.io, served
 * from the kubelets' summaries as metrics-server would) are passed in and
 * registered as built-in ones, so `kubectl get apiservices` lists
 * v1beta1.metrics.k8s.io as the resource pages expect.
 */
import { apiVersionOf, resources as builtinResources, type ResourceInfo } from '../../api/resources.js';
import { rfc3339 } from '../../util/clock.js';
import { apiRegistrationGroup, apiServiceName, type APIService, type APIServiceCondition } from '../../api/apiregistration.js';
import { createIfAbsent } from '../../registry/bootstrap.js';
import { statusCode } from '../../registry/status-code.js';
import type { Registry } from '../../registry/registry.js';
import type { Store } from '../../registry/store.js';
import type { Logger } from '../../util/log.js';
import { priorityOf } from './priorities.js';

export const automanagedLabel = 'kube-aggregator.kubernetes.io/automanaged';

/** Upstream's condition for a local APIService (availability controller). */
export function localAvailable(now: string): APIServiceCondition {
  return { type: 'Available', status: 'True', lastTransitionTime: now, reason: 'Local', message: 'Local APIServices are always available' };
}

function localAPIService(r: Pick<ResourceInfo, 'group' | 'version'>, custom: boolean): APIService {
  const p = priorityOf(apiVersionOf(r), custom);
  return {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService',
    metadata: { name: apiServiceName(r.group, r.version), labels: { [automanagedLabel]: custom ? 'true' : 'onstart' } },
    spec: { group: r.group, version: r.version, groupPriorityMinimum: p.group, versionPriority: p.version },
  };
}

export class APIServiceAutoregister {
  private readonly store: Store;
  private syncing = Promise.resolve();
  private closed = false;

  constructor(private readonly registry: Registry, private readonly logger: Logger, private readonly now: () => Date,
    private readonly served: readonly Pick<ResourceInfo, 'group' | 'version'>[] = []) {
    this.store = registry.store(apiRegistrationGroup, 'v1', 'apiservices')!;
  }

  /** Registers every served group version now, then follows the CRDs. */
  async start(): Promise<void> {
    this.registry.custom.onChange(() => { if (!this.closed) this.syncing = this.syncing.then(() => this.sync()).catch((e) => this.logger.warn('autoregister', { err: e })); });
    await this.sync();
  }

  close(): void { this.closed = true; }

  private async sync(): Promise<void> {
    const builtin = new Set(builtinResources.map(apiVersionOf));
    const wanted = new Map<string, APIService>();
    for (const r of [...this.served, ...this.registry.resources()]) {
      const name = apiServiceName(r.group, r.version);
      if (!wanted.has(name)) wanted.set(name, localAPIService(r, !this.served.includes(r) && !builtin.has(apiVersionOf(r))));
    }
    // All at once: on a fresh store the creates share a few group commits (one fsync each) instead of
    // waiting for one fsync apiece, which was a visible part of a fresh `k8ts up`'s start (bench/startup.ts).
    await Promise.all([...wanted.values()].map((svc) => this.ensure(svc)));
    // A custom resource group version no longer served loses its APIService.
    const existing = await this.store.list(undefined, { labelSelector: `${automanagedLabel}=true` });
    const gone = (existing.items as APIService[]).filter((svc) => !wanted.has(svc.metadata!.name!));
    await Promise.all(gone.map((svc) => this.store.delete(undefined, svc.metadata!.name!).catch(() => undefined)));
  }

  private async ensure(svc: APIService): Promise<void> {
    const name = svc.metadata!.name!;
    // Read first: on every start after the first they all exist, and a create that ends in 409 still
    // pays for admission and validation (some 50 of them before /readyz, bench/startup.ts).
    let cur = await this.store.get(undefined, name).catch((e) => { if (statusCode(e) === 404) return undefined; throw e; }) as APIService | undefined;
    if (!cur) {
      await createIfAbsent(() => this.store.create(undefined, svc));
      cur = await this.store.get(undefined, name) as APIService;
    }
    if (cur.spec.service) return; // a user's APIService took the name: not ours to mark
    const cond = cur.status?.conditions?.find((c) => c.type === 'Available');
    if (cond?.status === 'True' && cond.reason === 'Local') return;
    await this.store.guaranteedUpdate(undefined, name, (obj: APIService) => {
      obj.status = { conditions: [localAvailable(rfc3339(this.now()))] };
      return obj;
    }, { subresource: 'status' });
  }
}
