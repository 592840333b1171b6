/**
 * Service -> address, the one resolution behind admission webhooks, CRD
 * conversion webhooks and the aggregation layer (proxying and availability):
 * kube-apiserver's endpoint routing (apiserver/pkg/util/proxy ResolveEndpoint),
 * reading the watch-fed caches, never storage:
 *  1. the Service must exist and be ClusterIP, NodePort or LoadBalancer;
 *  2. its port must list the webhook's port (else 503 `no service port N found for service "x"`);
 *  3. an address serving that port's name: from the Service's EndpointSlices
 *     (label kubernetes.io/service-name; ready endpoints), else from its Endpoints;
 *     none: 503 `no endpoints available for service "x"`;
 *  4. one address at random among them (upstream picks at random too).
 * The caller connects to that address and verifies the serving certificate for
 * `NAME.NAMESPACE.svc` (the name upstream's webhook client sets as ServerName).
 * `resolve` throws (webhook callers word the failure); `route` answers a value
 * with the reasons and messages of kube-aggregator's availability controller,
 * and also routes an ExternalName Service to its name (as the aggregator's
 * cluster routing does).
 */
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { notFound, serviceUnavailable } from '../api/status.js';
import { Lister } from '../registry/lister.js';
import type { Registry } from '../registry/registry.js';
import type { Logger } from '../util/log.js';

export interface ServiceResolverSources {
  service(namespace: string, name: string): Service | undefined;
  endpointSlices(namespace: string): Iterable<EndpointSlice>;
  endpoints(namespace: string, name: string): Endpoints | undefined;
}

export interface ResolvedService {
  /** `https://IP:PORT` to connect to. */
  url: string;
  /** The name the serving certificate must carry. */
  serverName: string;
}

export interface ServiceRef { namespace: string; name: string; port: number }

/** `route`'s answer: where to connect, or why not (an APIService's Available condition). */
export type Resolution =
  | { ok: true; host: string; port: number; serverName: string }
  | { ok: false; reason: 'ServiceNotFound' | 'MissingEndpoints'; message: string };

const serviceNameLabel = 'kubernetes.io/service-name';
const routable = new Set(['ClusterIP', 'NodePort', 'LoadBalancer']);

export class ServiceResolver {
  constructor(readonly sources: ServiceResolverSources, private readonly random: () => number = Math.random) {}

  /** Throws a StatusError (404, 503, or 500 for an unsupported type) when the Service cannot be reached. */
  resolve(namespace: string, name: string, port: number): ResolvedService {
    const svc = this.sources.service(namespace, name);
    if (!svc) throw notFound({ group: '', resource: 'service' }, name);
    const type = svc.spec?.type ?? 'ClusterIP';
    if (!routable.has(type)) throw new Error(`unsupported service type "${type}"`);
    const svcPort = (svc.spec?.ports ?? []).find((p) => p.port === port);
    if (!svcPort) throw serviceUnavailable(`no service port ${port} found for service "${name}"`);
    const portName = svcPort.name ?? '';
    const candidates = this.fromSlices(namespace, name, portName);
    const addresses = candidates.length ? candidates : this.fromEndpoints(namespace, name, portName);
    if (!addresses.length) throw serviceUnavailable(`no endpoints available for service "${name}"`);
    const pick = addresses[Math.floor(this.random() * addresses.length)];
    const host = pick.ip.includes(':') ? `[${pick.ip}]` : pick.ip;
    return { url: `https://${host}:${pick.port}`, serverName: `${name}.${namespace}.svc` };
  }

  /** The aggregation layer's form: a value, with kube-aggregator's reasons and messages. */
  route(ref: ServiceRef): Resolution {
    const { namespace, name, port } = ref;
    const svc = this.sources.service(namespace, name);
    if (!svc) return { ok: false, reason: 'ServiceNotFound', message: `service/${name} in "${namespace}" is not present` };
    const serverName = `${name}.${namespace}.svc`;
    if (svc.spec?.type === 'ExternalName' && svc.spec.externalName) return { ok: true, host: svc.spec.externalName, port, serverName };
    const svcPort = (svc.spec?.ports ?? []).find((p) => p.port === port);
    if (!svcPort) return { ok: false, reason: 'ServiceNotFound', message: `service/${name} in "${namespace}" is not listening on port ${port}` };
    const portName = svcPort.name ?? '';
    const candidates = this.fromSlices(namespace, name, portName);
    const addresses = candidates.length ? candidates : this.fromEndpoints(namespace, name, portName);
    if (!addresses.length) return { ok: false, reason: 'MissingEndpoints', message: `endpoints for service/${name} in "${namespace}" have no addresses with port name "${portName}"` };
    const pick = addresses[Math.floor(this.random() * addresses.length)];
    return { ok: true, host: pick.ip, port: pick.port, serverName };
  }

  private fromSlices(namespace: string, name: string, portName: string): { ip: string; port: number }[] {
    const out: { ip: string; port: number }[] = [];
    for (const slice of this.sources.endpointSlices(namespace)) {
      if (slice.metadata?.labels?.[serviceNameLabel] !== name || slice.addressType === 'FQDN') continue;
      const port = (slice.ports ?? []).find((p) => (p.name ?? '') === portName)?.port;
      if (port === undefined) continue;
      for (const ep of slice.endpoints) {
        // Upstream treats an unknown readiness as ready.
        if (ep.conditions?.ready === false) continue;
        for (const ip of ep.addresses) out.push({ ip, port });
      }
    }
    return out;
  }

  private fromEndpoints(namespace: string, name: string, portName: string): { ip: string; port: number }[] {
    const out: { ip: string; port: number }[] = [];
    for (const subset of this.sources.endpoints(namespace, name)?.subsets ?? []) {
      const port = (subset.ports ?? []).find((p) => (p.name ?? '') === portName)?.port;
      if (port === undefined) continue;
      for (const a of subset.addresses ?? []) out.push({ ip: a.ip, port });
    }
    return out;
  }
}

export interface ServiceResolution {
  resolver: ServiceResolver;
  start(): Promise<void>;
  close(): void;
}

/**
 * The server's one ServiceResolver, over watch-fed caches of Services (given:
 * the server already keeps one), EndpointSlices and Endpoints.
 */
export function createServiceResolution(registry: Registry, opts: { services: { get(namespace: string, name: string): Service | undefined }; logger?: Logger }): ServiceResolution {
  const slices = new Lister<EndpointSlice>(registry.store('discovery.k8s.io', 'v1', 'endpointslices')!, { logger: opts.logger });
  const endpoints = new Lister<Endpoints>(registry.store('', 'v1', 'endpoints')!, { logger: opts.logger });
  const resolver = new ServiceResolver({
    service: (ns, name) => opts.services.get(ns, name),
    endpointSlices: (ns) => slices.inNamespace(ns),
    endpoints: (ns, name) => endpoints.get(ns, name),
  });
  return {
    resolver,
    start: async () => { await Promise.all([slices.start(), endpoints.start()]); },
    close: () => { slices.close(); endpoints.close(); },
  };
}
