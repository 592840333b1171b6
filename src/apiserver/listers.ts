/**
 * The API server's watch-fed caches (upstream's shared informer factory that
 * kube-apiserver hands its admission plugins): one Lister per kind the
 * request path reads, started before the server serves, so admission and
 * defaulting read memory instead of listing storage on every request.
 */
import type { LimitRange, Namespace, Node, ResourceQuota, Service, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { IngressClass } from 'kubernetes-types/networking/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { Lister } from '../registry/lister.js';
import type { Registry } from '../registry/registry.js';
import type { Logger } from '../util/log.js';

export interface Listers {
  namespaces: Lister<Namespace>;
  serviceAccounts: Lister<ServiceAccount>;
  limitRanges: Lister<LimitRange>;
  resourceQuotas: Lister<ResourceQuota>;
  priorityClasses: Lister<PriorityClass>;
  storageClasses: Lister<StorageClass>;
  runtimeClasses: Lister<RuntimeClass>;
  ingressClasses: Lister<IngressClass>;
  services: Lister<Service>;
  nodes: Lister<Node>;
}

export interface ListerSet extends Listers {
  /** Resolves once every cache has read the current state. */
  start(): Promise<void>;
  close(): void;
}

export function createListers(registry: Registry, logger?: Logger): ListerSet {
  const lister = (group: string, plural: string): Lister => new Lister(registry.store(group, 'v1', plural)!, { logger });
  const listers: Listers = {
    namespaces: lister('', 'namespaces'),
    serviceAccounts: lister('', 'serviceaccounts'),
    limitRanges: lister('', 'limitranges'),
    resourceQuotas: lister('', 'resourcequotas'),
    priorityClasses: lister('scheduling.k8s.io', 'priorityclasses'),
    storageClasses: lister('storage.k8s.io', 'storageclasses'),
    runtimeClasses: lister('node.k8s.io', 'runtimeclasses'),
    ingressClasses: lister('networking.k8s.io', 'ingressclasses'),
    services: lister('', 'services'),
    nodes: lister('', 'nodes'),
  };
  const all = Object.values(listers) as Lister[];
  return {
    ...listers,
    start: async () => { await Promise.all(all.map((l) => l.start())); },
    close: () => { for (const l of all) l.close(); },
  };
}
