/**
 * What a simulated container reaches without a network (the hooks of the
 * simulated shell's curl, wget and nslookup):
 *
 *  1. HTTP to its own pod (localhost, 127.0.0.1, ::1, the pod's IP or
 *     hostname) goes, through node's HTTP client, to the connection the
 *     runtime's dialPort gives (listeners.ts: the same answers as
 *     port-forward); a refused port is `connect`; a name that does not
 *     resolve is `resolve`.
 *  3. HTTP to another address (cluster-network.ts): another pod this
 *     process simulates, by its IP, or a Service's cluster IP, sent on to
 *     one of its ready endpoints as kube-proxy would; anything else is not
 *     reached (`connect`).
 *  2. DNS: the pod's resolv.conf as the kubelet writes it for ClusterFirst
 *     (kubelet/dns.ts: the kube-dns Service's IP, `NS.svc.cluster.local
 *     svc.cluster.local cluster.local`, ndots 5), answered by the cluster
 *     DNS's own record logic (api/dns: ClusterRecords, ClusterZone) over the
 *     Services and EndpointSlices of service-objects.ts when a name asks for
 *     them: `host.svc.ns.svc.zone` or `svc.ns.svc.zone` reads that Service
 *     and its slices; reverse names are answered from what was read (and
 *     kube-dns, read first), which is what nslookup asks for.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { isIP } from 'node:net';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { ClusterRecords } from '../../../api/dns/cluster-records.js';
import { ClusterZone } from '../../../api/dns/cluster-zone.js';
import { canonicalName, inZone } from '../../../api/dns/names.js';
import { podDNSConfig } from '../../dns.js';
import { getOptional, type PodObjectGetter } from '../../volumes/objects.js';
import type { HttpOutcome, HttpRequest } from './http-commands.js';
import { clientRequestHeaders, readResponse } from './http-wire.js';
import type { PodResolver } from './nslookup.js';
import { serviceBackends, type PortDialer, type SimulatedPodNetwork } from './cluster-network.js';
import { refusedConnection } from './listeners.js';
import { connectionAllowed, droppedConnection } from './network-policy.js';

/** kubeadm's cluster domain, which every k8ts cluster uses. */
export const simulatedClusterDomain = 'cluster.local';

/**
 * Rules 1 and 3: an HTTP client of the pod's network. A name is resolved
 * as the container's libc would (`resolve`: /etc/hosts, cluster DNS): one
 * that resolves to the pod is the pod; one that resolves elsewhere goes
 * where `reach` sends it (another simulated pod, a Service's endpoint), or
 * is not reached (`connect`); one that does not resolve is `resolve`.
 */
export function podHttp(ownHosts: readonly string[], dial: PortDialer, resolveName: (host: string) => Promise<string[]>, reach: Reach = async () => undefined): (req: HttpRequest) => Promise<HttpOutcome> {
  const own = new Set(['localhost', '127.0.0.1', '::1', ...ownHosts].map((h) => h.toLowerCase()));
  const elsewhere = async (req: HttpRequest, address: string, host: string): Promise<HttpOutcome> => {
    const other = await reach(address, host).catch(() => undefined);
    return other ? request(req, other, address) : { error: 'connect', address };
  };
  return async (req) => {
    const host = req.url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (own.has(host)) return request(req, dial, isIP(host) ? host : '127.0.0.1');
    if (isIP(host)) return elsewhere(req, host, host);
    const addresses = await resolveName(host).catch(() => []);
    if (!addresses.length) return { error: 'resolve' };
    const mine = addresses.find((a) => own.has(a));
    return mine ? request(req, dial, mine) : elsewhere(req, addresses[0]!, host);
  };
}

/** Where a connection to `address` (reached by the name `host`) goes, when it goes anywhere. */
export type Reach = (address: string, host: string) => Promise<PortDialer | undefined>;

/**
 * Rule 3: another pod of `network` by its IP, or a Service's cluster IP,
 * each connection sent to one of its endpoints picked at random (kube-proxy's
 * nftables mode); a port without endpoints is refused, as kube-proxy rejects
 * it. The Service is looked for in the pod's namespace and in the one the
 * name gives (`svc.ns`, `svc.ns.svc.cluster.local`). A connection from
 * `sourceIP` to a pod that the NetworkPolicies of either end do not allow
 * is dropped (network-policy.ts).
 */
export function podReach(pod: Pod, objects: PodObjectGetter | undefined, network: SimulatedPodNetwork, sourceIP?: string): Reach {
  return async (address, host) => {
    const inputs = sourceIP ? await objects?.networkPolicies?.().catch(() => undefined) : undefined;
    const guarded = (ip: string, port: number, dial: PortDialer): Duplex => {
      const to = inputs && network.podObject(ip);
      return !to || connectionAllowed({ pod, ip: sourceIP! }, { pod: to, ip }, port, inputs) ? dial(port, sourceIP) : droppedConnection();
    };
    const direct = network.pod(address);
    if (direct) return (port) => guarded(address, port, direct);
    if (!objects?.services) return undefined;
    const namespaces = new Set([pod.metadata?.namespace ?? 'default']);
    const labels = isIP(host) ? [] : host.split('.');
    if (labels.length >= 2) namespaces.add(labels[1]!);
    for (const ns of namespaces) {
      const svc = (await objects.services(ns).catch(() => [])).find((s) => s.spec?.clusterIP === address || s.spec?.clusterIPs?.includes(address));
      if (!svc) continue;
      const slices = (await objects.endpointSlices?.(ns, svc.metadata!.name!).catch(() => undefined)) ?? [];
      return (port) => {
        const backends = serviceBackends(svc, slices, port);
        const b = backends[Math.floor(Math.random() * backends.length)];
        const dial = b && network.pod(b.ip);
        return b && dial ? guarded(b.ip, b.port, dial) : refusedConnection(port);
      };
    }
    return undefined;
  };
}

function request(req: HttpRequest, dial: PortDialer, address: string): Promise<HttpOutcome> {
  return new Promise<HttpOutcome>((done) => {
    let timer: NodeJS.Timeout | undefined;
    const resolve = (outcome: HttpOutcome) => { clearTimeout(timer); done(outcome); };
    const port = Number(req.url.port) || (req.url.protocol === 'https:' ? 443 : 80);
    // Nothing in a simulated pod speaks TLS: https reaches no one (but the API server: in-cluster-apiserver.ts).
    if (req.url.protocol === 'https:') { resolve({ error: 'connect', address }); return; }
    const r = http.request({
      method: req.method, path: `${req.url.pathname}${req.url.search}`, headers: clientRequestHeaders(req),
      // No agent: the request goes over this connection alone, never a socket of the host.
      createConnection: () => dial(port),
    }, (res) => { readResponse(res).then((response) => resolve({ response, address }), () => resolve({ error: 'connect', address })); });
    r.on('error', () => resolve({ error: 'connect', address }));
    // A dropped connection (NetworkPolicy) answers nothing: the client gives up after its timeout.
    if (req.timeoutMs) timer = setTimeout(() => { resolve({ error: 'timeout', address }); r.destroy(); }, req.timeoutMs);
    r.end(req.body);
  });
}

/** Rule 2: the pod's resolver over the cluster's records. */
export async function podResolver(pod: Pod, objects: PodObjectGetter | undefined): Promise<PodResolver> {
  const records = new ClusterRecords(simulatedClusterDomain);
  const zone = new ClusterZone(records, () => 1);
  // What each Service read so far gave: read again at every query that names it, as CoreDNS answers from
  // its watch. A Service not there yet is looked for again (a script's `until nslookup SVC` loop), and a
  // pod's hostname record appears once its endpoint does (the Job pod-to-pod page's `ping` loop).
  const read = new Map<string, { svc: Service; slices: EndpointSlice[] }>();
  const readService = async (namespace: string, name: string) => {
    if (!objects?.service) return;
    const key = `${namespace}/${name}`;
    const before = read.get(key);
    const svc = await getOptional(() => objects.service!(namespace, name)).catch(() => undefined);
    const slices = svc ? ((await objects.endpointSlices?.(namespace, name).catch(() => undefined)) ?? []) : [];
    // The cache hands out the same objects until they change: nothing to recompute (the HPA page's wget loop).
    if (before && svc === before.svc && slices.length === before.slices.length && slices.every((x, i) => x === before.slices[i])) return;
    for (const slice of before?.slices ?? []) records.deleteSlice(slice);
    if (before && !svc) records.deleteService(before.svc);
    if (!svc) { read.delete(key); return; }
    read.set(key, { svc, slices });
    records.setService(svc);
    for (const slice of slices) records.setSlice(slice);
  };
  await readService('kube-system', 'kube-dns');
  const kubeDNS = records.service('kube-system', 'kube-dns')?.spec?.clusterIP;
  const { config } = podDNSConfig(pod, { clusterDNS: kubeDNS && kubeDNS !== 'None' ? [kubeDNS] : [], clusterDomain: simulatedClusterDomain });
  const ndots = Number(/^ndots:(\d+)$/.exec(config.options.find((o) => o.startsWith('ndots:')) ?? '')?.[1] ?? 1);
  return {
    server: config.servers[0] ?? '127.0.0.1', search: config.searches.filter((s) => s !== '.'), ndots,
    async query(name, type) {
      const n = canonicalName(name);
      if (!inZone(n, simulatedClusterDomain) && !n.endsWith('.arpa')) return [];
      // host.svc.ns.svc.zone or svc.ns.svc.zone: that Service's records.
      const labels = n.slice(0, -(simulatedClusterDomain.length + 1)).split('.');
      const at = labels.lastIndexOf('svc');
      if (at >= 2 && at === labels.length - 1) await readService(labels[at - 1]!, labels[at - 2]!);
      const answer = zone.answer({ name: n, type });
      return (answer?.answers ?? []).filter((a) => a.type === type).map((a) => String((a as { data: unknown }).data));
    },
  };
}
