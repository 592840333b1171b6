/**
 * The Endpoints a Service should have (upstream pkg/controller/endpoint
 * syncService, pkg/api/v1/endpoints RepackSubsets), as pure functions.
 *
 * 1. Services of type ExternalName and services without a selector are
 *    left alone (someone else manages their Endpoints).
 * 2. A selected pod counts unless it is terminal (Succeeded/Failed), has no
 *    IP, or is terminating while the service does not publish not-ready
 *    addresses.
 * 3. Its address is the pod IP of the service's first IP family, with
 *    nodeName and a targetRef to the pod; `hostname` is the pod's
 *    spec.hostname when its spec.subdomain names this service (what gives
 *    StatefulSet pods their DNS names).
 *    Departure: a pod IP the Endpoints API refuses (loopback, link-local,
 *    unspecified: ValidateNonSpecialIP) is left out. Upstream never meets one,
 *    because its kubelet refuses a loopback node IP (validateNodeIP) and a
 *    hostNetwork pod's IP is its node's; k8ts's simulated nodes (`k8ts up`)
 *    advertise 127.0.0.1 so `kubectl logs` reaches their kubelet API, which
 *    makes the host-network CoreDNS pods' IP 127.0.0.1. Listing it would fail
 *    every write of kube-dns's Endpoints (a warning a second on `npm start`),
 *    and no DNS server answers there anyway: those pods are simulated.
 * 4. For each service port the target port is resolved on the pod (a number,
 *    or a container port name with the same protocol; pods without it are
 *    skipped for that port). A headless service without ports lists bare
 *    addresses.
 * 5. Ready pods (or all, with publishNotReadyAddresses) go to `addresses`,
 *    the others to `notReadyAddresses`; subsets are repacked so addresses
 *    that share the same ports share one subset, sorted by IP.
 * 6. Past 1000 addresses the list is truncated and annotated
 *    `endpoints.kubernetes.io/over-capacity: truncated`.
 */
import { podIsReady } from '../../api/pods.js';
import type { Endpoints, ObjectReference, Pod, Service, ServicePort } from 'kubernetes-types/core/v1.js';
import { findPort, shouldPodBeInEndpoints } from '../../api/serviceendpoints.js';
import { validateNonSpecialIP } from '../../api/validation/endpoints.js';

export { findPort, shouldPodBeInEndpoints } from '../../api/serviceendpoints.js';

export const maxCapacity = 1000;
export const annOverCapacity = 'endpoints.kubernetes.io/over-capacity';
export const annLastChangeTriggerTime = 'endpoints.kubernetes.io/last-change-trigger-time';
export const labelHeadless = 'service.kubernetes.io/headless';

export interface EndpointAddress { ip: string; hostname?: string; nodeName?: string; targetRef?: ObjectReference }
export interface EndpointPort { name?: string; port: number; protocol?: string; appProtocol?: string }
export interface EndpointSubset { addresses?: EndpointAddress[]; notReadyAddresses?: EndpointAddress[]; ports?: EndpointPort[] }

/** Rule 1. */
export const serviceManagesEndpoints = (svc: Service) => svc.spec?.type !== 'ExternalName' && svc.spec?.selector != null;

const isIPv6 = (ip: string | undefined) => !!ip && ip.includes(':');

/** Rule 3 (podToEndpointAddressForService); undefined when the pod has no IP of the family. */
export function podToEndpointAddress(svc: Service, pod: Pod): EndpointAddress | undefined {
  let v6: boolean;
  if (svc.spec?.ipFamilies?.length) v6 = svc.spec.ipFamilies[0] === 'IPv6';
  else if (svc.spec?.clusterIP && svc.spec.clusterIP !== 'None') v6 = isIPv6(svc.spec.clusterIP);
  else v6 = isIPv6(pod.status?.podIP);
  const ips: string[] = (pod.status?.podIPs ?? []).map((p) => p.ip!);
  if (!ips.length && pod.status?.podIP) ips.push(pod.status.podIP);
  const ip = ips.find((i) => isIPv6(i) === v6);
  if (!ip || validateNonSpecialIP(ip, 'ip').length) return undefined;
  const addr: EndpointAddress = { ip };
  if (pod.spec?.hostname && pod.spec.subdomain === svc.metadata!.name && pod.metadata!.namespace === svc.metadata!.namespace) {
    addr.hostname = pod.spec.hostname;
  }
  if (pod.spec?.nodeName) addr.nodeName = pod.spec.nodeName;
  addr.targetRef = { kind: 'Pod', namespace: pod.metadata!.namespace, name: pod.metadata!.name, uid: pod.metadata!.uid };
  return addr;
}

function endpointPort(svcPort: ServicePort, port: number): EndpointPort {
  const out: EndpointPort = svcPort.name ? { name: svcPort.name, port } : { port };
  out.protocol = svcPort.protocol ?? 'TCP';
  if (svcPort.appProtocol) out.appProtocol = svcPort.appProtocol;
  return out;
}

/** Rules 2 to 5: the repacked subsets for the service's selected pods. */
export function computeEndpointSubsets(svc: Service, pods: Iterable<Pod>): EndpointSubset[] {
  const tolerateUnready = !!svc.spec?.publishNotReadyAddresses;
  const ports: ServicePort[] = svc.spec?.ports ?? [];
  const raw: { addr: EndpointAddress; ready: boolean; port?: EndpointPort }[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const addr = podToEndpointAddress(svc, pod);
    if (!addr) continue;
    const ready = tolerateUnready || podIsReady(pod);
    if (!ports.length) {
      if (svc.spec?.clusterIP === 'None') raw.push({ addr, ready });
      continue;
    }
    for (const sp of ports) {
      const n = findPort(pod, sp);
      if (n !== undefined) raw.push({ addr, ready, port: endpointPort(sp, n) });
    }
  }
  return repackSubsets(raw);
}

const addrKey = (a: EndpointAddress) => `${a.ip}/${a.targetRef?.uid ?? ''}`;
const portKey = (p: EndpointPort | undefined) => (p ? JSON.stringify([p.name ?? '', p.port, p.protocol ?? '', p.appProtocol ?? '']) : '');

/** LessEndpointAddress: by IP, then target UID. */
export function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  if (a.ip !== b.ip) return a.ip < b.ip ? -1 : 1;
  const ua = a.targetRef?.uid ?? '';
  const ub = b.targetRef?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/**
 * RepackSubsets: map each port to the addresses offering it (ready wins over
 * not-ready for the same address), then group ports with identical address
 * sets into one subset.
 */
export function repackSubsets(raw: { addr: EndpointAddress; ready: boolean; port?: EndpointPort }[]): EndpointSubset[] {
  const byPort = new Map<string, { port?: EndpointPort; addrs: Map<string, { addr: EndpointAddress; ready: boolean }> }>();
  for (const r of raw) {
    const pk = portKey(r.port);
    let entry = byPort.get(pk);
    if (!entry) byPort.set(pk, (entry = { port: r.port, addrs: new Map() }));
    const ak = addrKey(r.addr);
    const prev = entry.addrs.get(ak);
    if (!prev || !prev.ready) entry.addrs.set(ak, { addr: prev?.addr ?? r.addr, ready: r.ready });
  }
  const groups = new Map<string, EndpointSubset>();
  for (const { port, addrs } of byPort.values()) {
    const list = [...addrs.values()].sort((a, b) => compareAddresses(a.addr, b.addr));
    const gk = list.map((a) => `${addrKey(a.addr)}=${a.ready}`).join(',');
    let subset = groups.get(gk);
    if (!subset) {
      subset = {};
      const ready = list.filter((a) => a.ready).map((a) => a.addr);
      const notReady = list.filter((a) => !a.ready).map((a) => a.addr);
      if (ready.length) subset.addresses = ready;
      if (notReady.length) subset.notReadyAddresses = notReady;
      groups.set(gk, subset);
    }
    if (port) (subset.ports ??= []).push(port);
  }
  const out = [...groups.values()];
  for (const s of out) s.ports?.sort((a, b) => (portKey(a) < portKey(b) ? -1 : portKey(a) > portKey(b) ? 1 : 0));
  const first = (s: EndpointSubset) => (s.addresses ?? s.notReadyAddresses ?? [])[0];
  return out.sort((a, b) => compareAddresses(first(a), first(b)) || (portKey(a.ports?.[0]) < portKey(b.ports?.[0]) ? -1 : 1));
}

const countAddresses = (subsets: EndpointSubset[]) =>
  subsets.reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);

/** Rule 6 (truncateEndpoints): keeps maxCapacity addresses, ready ones first, proportionally per subset. */
export function truncateSubsets(subsets: EndpointSubset[]): { subsets: EndpointSubset[]; truncated: boolean } {
  const ready = subsets.reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  const total = countAddresses(subsets);
  if (total <= maxCapacity) return { subsets, truncated: false };
  const truncateReady = ready > maxCapacity;
  const max = truncateReady ? maxCapacity : maxCapacity - ready;
  const numTotal = truncateReady ? ready : total - ready;
  let canBeAdded = max;
  const out = subsets.map((s) => {
    const n = (truncateReady ? s.addresses : s.notReadyAddresses)?.length ?? 0;
    const take = Math.min(Math.ceil((n / numTotal) * max), canBeAdded);
    const next: EndpointSubset = { ...s };
    if (truncateReady) {
      next.addresses = (s.addresses ?? []).slice(0, take);
      delete next.notReadyAddresses;
      canBeAdded -= next.addresses.length;
    } else {
      next.notReadyAddresses = (s.notReadyAddresses ?? []).slice(0, take);
      canBeAdded -= next.notReadyAddresses.length;
    }
    return next;
  });
  return { subsets: out, truncated: true };
}

/** JSON with sorted keys, so objects read back from the server compare equal to ours. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}
const normalize = (subsets: EndpointSubset[] | undefined) => canonical(subsets ?? []);

/** RFC 3339 with nanoseconds as Go prints it: trailing fraction zeros dropped. */
export const rfc3339Nano = (d: Date) => d.toISOString().replace(/\.?0+Z$/, 'Z');
const labelsEqual = (a: Record<string, string> | undefined, b: Record<string, string> | undefined) => {
  const ka = Object.keys(a ?? {}).sort();
  const kb = Object.keys(b ?? {}).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a![k] === b![k]);
};

/**
 * The Endpoints object to write for the service, or undefined when the
 * current one already says it (subsets, labels and capacity annotation).
 * `current` undefined means create.
 */
export function desiredEndpoints(svc: Service, current: Endpoints | undefined, subsets: EndpointSubset[], triggerTime: Date | undefined): Endpoints | undefined {
  const headless = !svc.spec?.clusterIP || svc.spec.clusterIP === 'None';
  if (current) {
    const compareLabels = { ...(current.metadata?.labels ?? {}) };
    delete compareLabels[labelHeadless];
    const overCapacityOk = countAddresses(current.subsets ?? []) <= maxCapacity && !Object.hasOwn(current.metadata?.annotations ?? {}, annOverCapacity);
    if (normalize(current.subsets) === normalize(subsets) && labelsEqual(compareLabels, svc.metadata!.labels) && overCapacityOk) return undefined;
  }
  const next: Endpoints = current ? structuredClone(current) : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: svc.metadata!.name, namespace: svc.metadata!.namespace } };
  const meta = next.metadata!;
  const { subsets: kept, truncated } = truncateSubsets(subsets);
  next.subsets = kept;
  const annotations: Record<string, string> = { ...(meta.annotations ?? {}) };
  if (triggerTime) annotations[annLastChangeTriggerTime] = rfc3339Nano(triggerTime); else delete annotations[annLastChangeTriggerTime];
  if (truncated) annotations[annOverCapacity] = 'truncated'; else delete annotations[annOverCapacity];
  meta.annotations = annotations;
  const labels: Record<string, string> = { ...(svc.metadata!.labels ?? {}) };
  if (headless) labels[labelHeadless] = ''; else delete labels[labelHeadless];
  meta.labels = labels;
  return next;
}
