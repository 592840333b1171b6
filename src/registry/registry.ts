/**
 * The registry: one Store per served resource, plus the namespace lifecycle
 * rules every namespaced create goes through.
 */
import type { Backend } from '../storage/backend.js';
import { resources, ResourceInfo, apiVersionOf } from '../api/resources.js';
import { forbiddenStatus, notFound, type GroupResource } from '../api/status.js';
import type { Clock } from '../util/clock.js';
import { Store, StoreHooks } from './store.js';
import type { Strategy } from './strategy.js';
import { genericStrategy } from './strategies/generic.js';
import { podStrategy } from './strategies/pods.js';
import { nodeStrategy } from './strategies/nodes.js';
import { namespaceStrategy } from './strategies/namespaces.js';
import { initialStatusStrategy } from './strategies/simple-status.js';
import { daemonSetStrategy } from './strategies/daemonsets.js';
import { coreEventStrategy, eventsV1StorageVersion } from './strategies/events.js';

function strategyFor(info: ResourceInfo): Strategy {
  switch (`${info.group}/${info.plural}`) {
    case '/pods': return podStrategy(info);
    case '/nodes': return nodeStrategy(info);
    case '/namespaces': return namespaceStrategy(info);
    case 'apps/daemonsets': return daemonSetStrategy(info);
    case '/events': return coreEventStrategy(info);
    case '/persistentvolumes':
    case '/persistentvolumeclaims': return initialStatusStrategy(info, () => ({ phase: 'Pending' }));
    case 'certificates.k8s.io/certificatesigningrequests': return initialStatusStrategy(info, () => ({}));
    // Upstream's service strategy resets status to an empty ServiceStatus, whose
    // loadBalancer struct is always serialized: clients read status.loadBalancer.
    case '/services': return initialStatusStrategy(info, () => ({ loadBalancer: {} }));
    default: return genericStrategy(info);
  }
}

export interface RegistryOptions {
  /** How long a list or watch for a resourceVersion the store has not reached waits for it (default 3 s, as upstream). */
  freshnessWaitMs?: number;
}

export class Registry {
  private readonly stores = new Map<string, Store>();

  constructor(readonly backend: Backend, readonly clock: Clock, admit?: StoreHooks['admit'], opts: RegistryOptions = {}) {
    const hooks: StoreHooks = { admit, checkNamespace: (ns, gr, name) => this.checkNamespace(ns, gr, name) };
    const deps = { backend, clock, hooks, freshnessWaitMs: opts.freshnessWaitMs };
    for (const info of resources) {
      if (info.plural === 'bindings') continue;
      const storage = info.group === 'events.k8s.io' && info.plural === 'events' ? eventsV1StorageVersion() : undefined;
      this.stores.set(storeKey(info.group, info.version, info.plural), new Store(info, strategyFor(info), deps, storage));
    }
  }

  store(group: string, version: string, plural: string): Store | undefined {
    return this.stores.get(storeKey(group, version, plural));
  }

  /** The store for `apps/v1` + `DaemonSet`. */
  storeForKind(apiVersion: string, kind: string): Store | undefined {
    for (const s of this.stores.values()) if (apiVersionOf(s.info) === apiVersion && s.info.kind === kind) return s;
    return undefined;
  }

  all(): Store[] { return [...this.stores.values()]; }

  get namespaces(): Store { return this.store('', 'v1', 'namespaces')!; }

  /** NamespaceLifecycle admission: no content in absent or terminating namespaces. */
  private async checkNamespace(ns: string, gr: GroupResource, name: string): Promise<void> {
    let obj: any;
    try {
      obj = await this.namespaces.get(undefined, ns);
    } catch {
      throw notFound({ group: '', resource: 'namespaces' }, ns);
    }
    if (obj.metadata.deletionTimestamp || obj.status?.phase === 'Terminating') {
      throw forbiddenStatus(`unable to create new content in namespace ${ns} because it is being terminated`, gr, name);
    }
  }
}

const storeKey = (g: string, v: string, p: string) => `${g}/${v}/${p}`;
