/**
 * The endpoints a slice controller wants, grouped by address type and port
 * list (pure; upstream pkg/controller/endpointslice utils and
 * endpointslicemirroring):
 *
 * For a Service with a selector (the EndpointSlice controller):
 *  1. ExternalName services and services without a selector get none;
 *  2. a selected pod counts unless terminal or without an IP (terminating
 *     pods stay, marked terminating);
 *  3. one endpoint per pod and address type of the service's ipFamilies
 *     (IPv4 by default), with the pod's IP of that family; conditions
 *     serving = ready (or publishNotReadyAddresses), terminating =
 *     deletionTimestamp set, ready = publishNotReadyAddresses or (serving
 *     and not terminating); nodeName, the node's topology.kubernetes.io/zone,
 *     hostname when the pod's subdomain names the service, targetRef to the pod;
 *  4. its ports are the service ports resolved on that pod (a port the pod
 *     lacks is left out), so pods with different container ports land in
 *     different groups.
 *
 * For the Endpoints of a Service without a selector (the mirroring
 * controller): every subset's addresses (ready) and notReadyAddresses (not
 * ready), grouped by IP family and the subset's ports.
 */
import type { EndpointAddress, Endpoints, Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Endpoint, EndpointPort } from 'kubernetes-types/discovery/v1.js';
import { matchesSelector, selectorFromSet } from '../../api/labels.js';
import { podIsReady } from '../../api/pods.js';
import { findPort, shouldPodBeInEndpoints } from '../../api/serviceendpoints.js';

export interface EndpointGroup { addressType: string; ports: EndpointPort[]; endpoints: Endpoint[] }

export const zoneLabel = 'topology.kubernetes.io/zone';
const familyOf = (ip: string) => (ip.includes(':') ? 'IPv6' : 'IPv4');

/** Selector.Matches for a service's map selector (nil selects nothing). */
export function serviceSelectsPod(svc: Service, pod: Pod): boolean {
  const sel = svc.spec?.selector;
  if (sel == null || pod.metadata!.namespace !== svc.metadata!.namespace) return false;
  return matchesSelector(selectorFromSet(sel), pod.metadata!.labels);
}

/**
 * The labels half of serviceSelectsPod, for Informer.byIndex to ask of cached pods before reading
 * them: a namespace's other pods, kept cold by the informer, are not decoded at each sync.
 */
export function serviceSelectsLabels(svc: Service): (labels: Readonly<Record<string, string>> | undefined) => boolean {
  const sel = selectorFromSet(svc.spec?.selector ?? {});
  return (labels) => matchesSelector(sel, labels);
}

/** Rule 1: the services this controller manages. */
export const serviceHasSlices = (svc: Service) => svc.spec?.type !== 'ExternalName' && svc.spec?.selector != null;

/** Groups endpoints under a key of address type and ports, keeping first-seen order. */
export class Grouper {
  private readonly groups = new Map<string, EndpointGroup>();
  add(addressType: string, ports: EndpointPort[], ep: Endpoint): void {
    const key = groupKey(addressType, ports);
    let g = this.groups.get(key);
    if (!g) { g = { addressType, ports, endpoints: [] }; this.groups.set(key, g); }
    g.endpoints.push(ep);
  }
  list(): EndpointGroup[] { return [...this.groups.values()]; }
}

export const groupKey = (addressType: string, ports: readonly EndpointPort[] | undefined) =>
  `${addressType}/${JSON.stringify([...(ports ?? [])].map((p) => [p.name ?? '', p.port ?? null, p.protocol ?? 'TCP', p.appProtocol ?? '']).sort())}`;

function podEndpoint(svc: Service, pod: Pod, ip: string, node: Node | undefined): Endpoint {
  const publish = !!svc.spec?.publishNotReadyAddresses;
  const serving = publish || podIsReady(pod);
  const terminating = !!pod.metadata!.deletionTimestamp;
  const ep: Endpoint = { addresses: [ip], conditions: { ready: publish || (serving && !terminating), serving, terminating } };
  if (pod.spec?.hostname && pod.spec?.subdomain === svc.metadata!.name) ep.hostname = pod.spec.hostname;
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  const zone = node?.metadata?.labels?.[zoneLabel];
  if (zone) ep.zone = zone;
  ep.targetRef = { kind: 'Pod', namespace: pod.metadata!.namespace, name: pod.metadata!.name, uid: pod.metadata!.uid };
  return ep;
}

function podPorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of svc.spec?.ports ?? []) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    out.push({ name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
  }
  return out;
}

/** Rules 2 to 4: the service's endpoint groups (none without pods; the reconciler keeps a placeholder). */
export function desiredServiceGroups(svc: Service, pods: Iterable<Pod>, nodeOf: (name: string | undefined) => Node | undefined): EndpointGroup[] {
  const families: string[] = svc.spec?.ipFamilies?.length ? svc.spec.ipFamilies : ['IPv4'];
  const grouper = new Grouper();
  const sorted = [...pods].filter((p) => shouldPodBeInEndpoints(p, true)).sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  for (const pod of sorted) {
    const ips: string[] = pod.status?.podIPs?.length ? pod.status.podIPs.map((x) => x.ip!) : [pod.status!.podIP!];
    const ports = podPorts(svc, pod);
    for (const family of families) {
      const ip = ips.find((i) => familyOf(i) === family);
      if (ip) grouper.add(family, ports, podEndpoint(svc, pod, ip, nodeOf(pod.spec?.nodeName)));
    }
  }
  return grouper.list();
}

/** The mirrored groups of a custom Endpoints object. */
export function mirroredGroups(endpoints: Endpoints): EndpointGroup[] {
  const grouper = new Grouper();
  for (const subset of endpoints.subsets ?? []) {
    const ports: EndpointPort[] = (subset.ports ?? []).map((p) => ({
      name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP', ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
    }));
    const add = (a: EndpointAddress, ready: boolean) => {
      const ep: Endpoint = { addresses: [a.ip], conditions: { ready } };
      if (a.hostname) ep.hostname = a.hostname;
      if (a.nodeName) ep.nodeName = a.nodeName;
      if (a.targetRef) ep.targetRef = a.targetRef;
      grouper.add(familyOf(a.ip), ports, ep);
    };
    for (const a of subset.addresses ?? []) add(a, true);
    for (const a of subset.notReadyAddresses ?? []) add(a, false);
  }
  return grouper.list();
}
