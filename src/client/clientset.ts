/** Typed access to the resources k8ts components use, and shared informers over them. */
import { RestClient, RestClientOptions } from './rest.js';
import type { ClientConfig } from './kubeconfig.js';
import { ResourceClient, GVR } from './resource.js';
import { Informer, InformerOptions } from './informer.js';

export const gvrs = {
  namespaces: { group: '', version: 'v1', resource: 'namespaces', namespaced: false },
  nodes: { group: '', version: 'v1', resource: 'nodes', namespaced: false },
  pods: { group: '', version: 'v1', resource: 'pods', namespaced: true },
  services: { group: '', version: 'v1', resource: 'services', namespaced: true },
  endpoints: { group: '', version: 'v1', resource: 'endpoints', namespaced: true },
  replicationcontrollers: { group: '', version: 'v1', resource: 'replicationcontrollers', namespaced: true },
  events: { group: '', version: 'v1', resource: 'events', namespaced: true },
  configmaps: { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
  secrets: { group: '', version: 'v1', resource: 'secrets', namespaced: true },
  persistentvolumes: { group: '', version: 'v1', resource: 'persistentvolumes', namespaced: false },
  persistentvolumeclaims: { group: '', version: 'v1', resource: 'persistentvolumeclaims', namespaced: true },
  daemonsets: { group: 'apps', version: 'v1', resource: 'daemonsets', namespaced: true },
  statefulsets: { group: 'apps', version: 'v1', resource: 'statefulsets', namespaced: true },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets', namespaced: true },
  controllerrevisions: { group: 'apps', version: 'v1', resource: 'controllerrevisions', namespaced: true },
  jobs: { group: 'batch', version: 'v1', resource: 'jobs', namespaced: true },
  cronjobs: { group: 'batch', version: 'v1', resource: 'cronjobs', namespaced: true },
  leases: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true },
  certificatesigningrequests: { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', namespaced: false },
  storageclasses: { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', namespaced: false },
  csinodes: { group: 'storage.k8s.io', version: 'v1', resource: 'csinodes', namespaced: false },
  clusterroles: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', namespaced: false },
  resourcequotas: { group: '', version: 'v1', resource: 'resourcequotas', namespaced: true },
  poddisruptionbudgets: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', namespaced: true },
  priorityclasses: { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', namespaced: false },
  endpointslices: { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', namespaced: true },
  serviceaccounts: { group: '', version: 'v1', resource: 'serviceaccounts', namespaced: true },
  horizontalpodautoscalers: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', namespaced: true },
  networkpolicies: { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', namespaced: true },
} satisfies Record<string, GVR>;

export type ResourceName = keyof typeof gvrs;

export class Clientset {
  readonly rest: RestClient;
  private readonly clients = new Map<string, ResourceClient>();

  constructor(config: ClientConfig, opts: RestClientOptions = {}) {
    this.rest = new RestClient(config, opts);
  }

  resource(name: ResourceName): ResourceClient {
    let c = this.clients.get(name);
    if (!c) { c = new ResourceClient(this.rest, gvrs[name]); this.clients.set(name, c); }
    return c;
  }

  get pods() { return this.resource('pods'); }
  get nodes() { return this.resource('nodes'); }
  get daemonsets() { return this.resource('daemonsets'); }
  get statefulsets() { return this.resource('statefulsets'); }
  get controllerrevisions() { return this.resource('controllerrevisions'); }
  get jobs() { return this.resource('jobs'); }
  get cronjobs() { return this.resource('cronjobs'); }
  get leases() { return this.resource('leases'); }
  get events() { return this.resource('events'); }

  close(): void { this.rest.close(); }
}

/** One informer per resource, shared by every controller in the process. */
export class InformerFactory {
  private readonly informers = new Map<string, Informer>();
  private started = false;

  constructor(private readonly clients: Clientset, private readonly opts: InformerOptions = {}) {}

  informer(name: ResourceName): Informer {
    let inf = this.informers.get(name);
    if (!inf) {
      inf = new Informer(this.clients.resource(name), this.opts);
      this.informers.set(name, inf);
      if (this.started) inf.start();
    }
    return inf;
  }

  start(): void {
    this.started = true;
    for (const inf of this.informers.values()) inf.start();
  }

  async waitForSync(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
  }

  stop(): void { for (const inf of this.informers.values()) inf.stop(); }
}
