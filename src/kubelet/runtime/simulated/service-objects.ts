/**
 * The Services and EndpointSlices that simulated containers read (a wget or
 * curl to a Service, a name their resolver or nslookup looks up, the service
 * links of their environment), from one list and watch of each per process,
 * as kube-proxy, CoreDNS and the kubelet's service lister read them. Read
 * from the API per call, the HPA walkthrough's load generator (`while sleep
 * 0.01; do wget -q -O- http://php-apache; done`) cost the API server about
 * 5 ms of CPU a request in reads of Services and slices; from the cache a
 * request reads nothing.
 *
 * The watches start on the first read and the reads wait for their first
 * list, so a simulator whose containers never connect (k8ts sim's thousands
 * of nodes) watches nothing. Like kube-proxy's view, the cache trails the API
 * by a watch event: a Service created a moment ago may not be seen yet.
 */
import type { Namespace, Service } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { Informer, stripManagedFields, type Clientset } from '../../../client/index.js';
import type { Logger } from '../../../util/log.js';

const serviceNameLabel = 'kubernetes.io/service-name';

/** A read of an object the cache does not hold: the code `getOptional` takes as absence, as the API's 404. */
class NotInCache extends Error {
  readonly code = 404;
}

const stoppedError = () => new Error('the node\'s service objects are stopped (the node is shutting down)');

export class ServiceObjects {
  private services?: Informer;
  private slices?: Informer;
  private synced?: Promise<void>;
  private policies?: Informer;
  private namespaces?: Informer;
  private policiesSynced?: Promise<void>;
  /** After stop no watch starts: a pod's lookup during shutdown would otherwise open informers nobody stops, which keep retrying. */
  private stopped = false;

  constructor(private readonly clients: Clientset, private readonly logger?: Logger) {}

  async service(namespace: string, name: string): Promise<Service> {
    await this.ready();
    const svc = this.services!.get(`${namespace}/${name}`) as Service | undefined;
    if (!svc) throw new NotInCache(`services "${name}" not found`);
    return svc;
  }

  async namespaceServices(namespace: string): Promise<Service[]> {
    await this.ready();
    return this.services!.byIndex('namespace', namespace) as Service[];
  }

  async endpointSlices(namespace: string, service: string): Promise<EndpointSlice[]> {
    await this.ready();
    return this.slices!.byIndex('service', `${namespace}/${service}`) as EndpointSlice[];
  }

  /**
   * The NetworkPolicies and namespaces a connection between simulated pods is
   * checked against (network-policy.ts), watched from the first connection on,
   * as a policy-enforcing CNI plugin's agent watches them.
   */
  async networkPolicies(): Promise<{ policies(namespace: string): NetworkPolicy[]; namespaceLabels(name: string): Record<string, string> | undefined }> {
    if (this.stopped) throw stoppedError();
    if (!this.policiesSynced) {
      const opts = { logger: this.logger, transform: stripManagedFields, skipManagedFields: true };
      this.policies = new Informer(this.clients.resource('networkpolicies'), opts);
      this.namespaces = new Informer(this.clients.resource('namespaces'), opts);
      this.policies.addIndex('namespace', (np: NetworkPolicy) => [np.metadata!.namespace!]);
      this.policies.start();
      this.namespaces.start();
      this.policiesSynced = Promise.all([this.policies.waitForSync(), this.namespaces.waitForSync()]).then(() => undefined);
    }
    await this.policiesSynced;
    const policies = this.policies!;
    const namespaces = this.namespaces!;
    return {
      policies: (namespace) => policies.byIndex('namespace', namespace) as NetworkPolicy[],
      namespaceLabels: (name) => {
        const ns = namespaces.get(name) as Namespace | undefined;
        return ns ? (ns.metadata?.labels ?? {}) : undefined;
      },
    };
  }

  stop(): void {
    this.stopped = true;
    this.services?.stop();
    this.slices?.stop();
    this.policies?.stop();
    this.namespaces?.stop();
  }

  private ready(): Promise<void> {
    if (this.stopped) return Promise.reject(stoppedError());
    if (!this.synced) {
      const opts = { logger: this.logger, transform: stripManagedFields, skipManagedFields: true };
      this.services = new Informer(this.clients.resource('services'), opts);
      this.slices = new Informer(this.clients.resource('endpointslices'), opts);
      this.services.addIndex('namespace', (s: Service) => [s.metadata!.namespace!]);
      this.slices.addIndex('service', (s: EndpointSlice) => {
        const svc = s.metadata?.labels?.[serviceNameLabel];
        return svc ? [`${s.metadata!.namespace}/${svc}`] : [];
      });
      this.services.start();
      this.slices.start();
      this.synced = Promise.all([this.services.waitForSync(), this.slices.waitForSync()]).then(() => undefined);
    }
    return this.synced;
  }
}
