/**
 * Service → backend address, as kube-aggregator's endpoint routing
 * (ResolveEndpoint): the Service's port whose `port` is the APIService's
 * port, then a ready address of its EndpointSlices with that port's name.
 * (The webhooks work has its own src/apiserver/service-resolver.ts; the two
 * are to be merged.)
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Lister } from '../../registry/lister.js';

export interface ServiceRef { namespace: string; name: string; port: number }

export type Resolution =
  | { ok: true; host: string; port: number; serverName: string }
  | { ok: false; reason: 'ServiceNotFound' | 'MissingEndpoints'; message: string };

export interface ResolverListers { services: Lister<Service>; endpointSlices: Lister<EndpointSlice> }

export function resolveService(ref: ServiceRef, l: ResolverListers): Resolution {
  const svc = l.services.get(ref.namespace, ref.name);
  if (!svc) return { ok: false, reason: 'ServiceNotFound', message: `service/${ref.name} in "${ref.namespace}" is not present` };
  const serverName = `${ref.name}.${ref.namespace}.svc`;
  // An ExternalName Service routes to its name (upstream's ResolveEndpoint).
  if (svc.spec?.type === 'ExternalName' && svc.spec.externalName) return { ok: true, host: svc.spec.externalName, port: ref.port, serverName };
  const svcPort = svc.spec?.ports?.find((p) => p.port === ref.port);
  if (!svcPort) return { ok: false, reason: 'ServiceNotFound', message: `service/${ref.name} in "${ref.namespace}" is not listening on port ${ref.port}` };
  const portName = svcPort.name ?? '';
  for (const slice of l.endpointSlices.list(ref.namespace)) {
    if (slice.metadata?.labels?.['kubernetes.io/service-name'] !== ref.name) continue;
    const port = slice.ports?.find((p) => (p.name ?? '') === portName)?.port;
    if (port === undefined || port === null) continue;
    const ready = slice.endpoints.find((e) => e.conditions?.ready !== false && e.addresses.length > 0);
    if (ready) return { ok: true, host: ready.addresses[0], port, serverName };
  }
  return { ok: false, reason: 'MissingEndpoints', message: `endpoints for service/${ref.name} in "${ref.namespace}" have no addresses with port name "${portName}"` };
}
