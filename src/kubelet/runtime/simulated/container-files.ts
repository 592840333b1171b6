/**
 * The whole of what a command in a simulated container sees, put together
 * once for the container's own command, an exec and the image's responder:
 * the volumes' projected files (program.ts) under the root filesystem
 * (rootfs.ts), the instance's writable layer with the writable volumes
 * (layer.ts, volumes.ts) over them, and the pod's network as far as it
 * reaches (pod-network.ts: its own ports for curl and wget, the cluster's
 * records for nslookup).
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type { Duplex } from 'node:stream';
import { getOptional, type PodObjectGetter } from '../../volumes/objects.js';
import { podDNSConfig, resolvConfText } from '../../dns.js';
import type { ContainerView } from './program.js';
import { withRootFilesystem } from './rootfs.js';
import { imageContents } from './image-contents.js';
import { withWritableLayer, type WritableLayer } from './layer.js';
import { projectedReadOnly, writableMounts, type SimulatedVolumeStore } from './volumes.js';
import { podHttp, podReach, podResolver, simulatedClusterDomain } from './pod-network.js';
import { processPodNetwork, type SimulatedPodNetwork } from './cluster-network.js';
import { resolveHost } from './nslookup.js';
import { withInClusterAPIServer, type InClusterAPIServer } from './in-cluster-apiserver.js';
import type { ListenerFiles } from './listeners.js';
import { containerStat } from './file-stat.js';
import { containerUser } from './identity.js';
import { withProcFiles } from './proc-files.js';

export interface ContainerFilesDeps {
  pod: Pod;
  spec: Container;
  podIP?: string;
  /** The container instance's writable layer. */
  layer: WritableLayer;
  store: SimulatedVolumeStore;
  /** The pod's volumes resolved so far (volume name → store key), kept by the runtime for the pod's life. */
  volumeKeys?: Map<string, string>;
  objects?: PodObjectGetter;
  nodeName: string;
  /** A connection to a port of the pod (the runtime's dialPort). */
  dial(port: number): Duplex;
  /** The other simulated pods it reaches (default: the process's). */
  network?: SimulatedPodNetwork;
  /** When the instance started: the time `ls -l` shows (file-stat.ts); absent: the time of the read. */
  startedAt?: Date;
  /** The node's cluster DNS addresses (the kubelet's --cluster-dns): the pod's /etc/resolv.conf; absent: no resolv.conf is shown. */
  clusterDNS?: string[];
  /** The API server as the kubelet reaches it (https://HOST:PORT): where https to the `kubernetes` Service goes (in-cluster-apiserver.ts). */
  apiServer?: string;
}

/** The sandbox's resolv.conf, as the kubelet's DNS configuration makes it and containerd writes it. */
function podResolvConf(pod: Pod, clusterDNS: string[] | undefined): string | undefined {
  return clusterDNS ? resolvConfText(podDNSConfig(pod, { clusterDNS, clusterDomain: simulatedClusterDomain }).config) : undefined;
}

/**
 * Mounts the kubelet makes read-only: readOnly ones and the projected kinds (ConfigMap, Secret, downward API,
 * projected); and the root filesystem ('/') under securityContext.readOnlyRootFilesystem.
 */
function readOnlyMounts(pod: Pod, spec: Container): string[] {
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const mounts = (spec.volumeMounts ?? []).filter((m) => m.readOnly || projectedReadOnly(volumes.get(m.name))).map((m) => m.mountPath);
  return spec.securityContext?.readOnlyRootFilesystem ? ['/', ...mounts] : mounts;
}

/** `base` (program.ts containerView) with the root filesystem, layer, volumes and network. */
export async function withContainerFiles(base: ContainerView, d: ContainerFilesDeps): Promise<ContainerView> {
  const mountPaths = (d.spec.volumeMounts ?? []).map((m) => m.mountPath);
  const subdomain = d.pod.spec?.subdomain;
  const domain = subdomain ? `${subdomain}.${d.pod.metadata?.namespace}.svc.${simulatedClusterDomain}` : undefined;
  const root = withRootFilesystem(base, d.podIP, mountPaths, { domain, aliases: d.pod.spec?.hostAliases },
    imageContents(String(d.spec.image ?? ''))?.files, podResolvConf(d.pod, d.clusterDNS));
  const volumes = await writableMounts(d.pod, d.spec, { store: d.store, objects: d.objects, nodeName: d.nodeName, keys: d.volumeKeys });
  const layered = withWritableLayer(root, d.layer, readOnlyMounts(d.pod, d.spec), volumes);
  const { stat, hiddenEntries } = containerStat({
    pod: d.pod, spec: d.spec, user: base.user ?? containerUser(d.pod, d.spec), startedAt: d.startedAt ?? new Date(), workingDir: base.workingDir,
    layer: d.layer, volumes, lower: root, readBytes: (p) => layered.readBytes!(p), listDir: (p) => layered.listDir(p), projectedMode: base.projectedMode,
  });
  const files: ContainerView = withProcFiles({ ...layered, stat, hiddenEntries }, d.pod, d.spec);
  const ownHosts = [d.podIP, base.hostname].filter((h): h is string => !!h);
  let resolver: ReturnType<typeof podResolver> | undefined;
  const dns = () => (resolver ??= podResolver(d.pod, d.objects));
  const reach = podReach(d.pod, d.objects, d.network ?? processPodNetwork, d.podIP);
  const resolveName = (host: string) => resolveHost(host, files, dns);
  const podNetwork = podHttp(ownHosts, d.dial, resolveName, reach);
  const http = d.apiServer && d.objects?.service ? withInClusterAPIServer(podNetwork, resolveName, kubernetesService(d.apiServer, d.objects)) : podNetwork;
  return { ...files, http, dns, connect: tcpConnect(d, base.hostname, files, dns, reach) };
}

/** The `kubernetes` Service of the default namespace (from the process's watch of Services) and the API server behind it. */
function kubernetesService(server: string, objects: PodObjectGetter): InClusterAPIServer {
  return { server: new URL(server), serviceIP: async () => (await getOptional(() => objects.service!('default', 'kubernetes')))?.spec?.clusterIP };
}

/**
 * A TCP connection from the container to HOST:PORT (redis-cli, an image's
 * server dialling another: container-connect.ts): its own pod's ports
 * through the runtime's dialPort, else the name resolved as its libc would
 * (/etc/hosts, then the cluster DNS) and routed as curl's requests are.
 * undefined: the name does not resolve or no simulated pod holds the
 * address; a port nobody listens on gives a connection that fails with
 * ECONNREFUSED.
 */
function tcpConnect(d: ContainerFilesDeps, hostname: string, files: ContainerView, dns: () => ReturnType<typeof podResolver>, reach: ReturnType<typeof podReach>) {
  const own = new Set(['localhost', '127.0.0.1', d.podIP, hostname].filter((h): h is string => !!h).map((h) => h.toLowerCase()));
  return async (host: string, port: number): Promise<Duplex | undefined> => {
    if (own.has(host.toLowerCase())) return d.dial(port);
    const address = (await resolveHost(host, files, dns).catch(() => []))[0];
    if (!address) return undefined;
    if (own.has(address)) return d.dial(port);
    const dialer = await reach(address, host).catch(() => undefined);
    return dialer?.(port);
  };
}

/** The files an image's responder serves from (listeners.ts): the layer and volumes, without the environment. */
export async function listenerFiles(d: ContainerFilesDeps): Promise<ListenerFiles> {
  const hostname = d.pod.spec?.hostname ?? d.pod.metadata?.name ?? '';
  const base: ContainerView = { env: new Map(), hostname, workingDir: '/', readFile: () => undefined, listDir: () => undefined, refresh: async () => {} };
  const view = await withContainerFiles(base, d);
  return { readBytes: (p) => view.readBytes!(p), listDir: (p) => view.listDir(p), mountPaths: (d.spec.volumeMounts ?? []).map((m) => m.mountPath), http: view.http };
}
