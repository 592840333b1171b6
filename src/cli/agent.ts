/** `k8ts agent`: one node agent (kubelet) against any API server, with the simulated runtime or a CRI runtime (containerd). */
import { requireOneOf } from './flag-errors.js';
import { parseArgs } from 'node:util';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { isIP } from 'node:net';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Clientset, EventRecorder, loadKubeconfig } from '../client/index.js';
import { createLogger, type Logger } from '../util/log.js';
import type { KubeletDNSOptions } from '../kubelet/dns.js';
import {
  NodeAgent, SimulatedRuntime, createKubeletMetrics, realTimers, serveMetrics, indexFromName, nodeIPForIndex, podCIDRForIndex, mustParseDuration,
  type MetricsServer, type PodRuntime,
} from '../kubelet/index.js';
import { CRIRuntime, goGRPCError } from '../kubelet/runtime/cri/index.js';
import { ProcessRuntime } from '../kubelet/runtime/process/index.js';
import { SplitRuntime } from '../kubelet/runtime/split.js';
import { isAddonPod } from '../kubelet/runtime/addon-image.js';
import { isControlPlaneStaticPod } from '../kubelet/runtime/control-plane-pod.js';
import { cliEntry } from '../util/package-root.js';
import type { PodObjectGetter } from '../kubelet/volumes/objects.js';
import { hostInfo } from '../kubelet/hostinfo.js';
import { measureHost } from '../kubelet/hostpressure.js';
import { parseCountFlag, parseLabelsFlag, parseTaintsFlag } from '../kubelet/flags.js';
import { createKubeletAuth, createKubeletServer, reviewerFor, selfSignedServingCertificate, type KubeletServer } from '../kubelet/server/index.js';
import type { NodeAgentOptions } from '../kubelet/index.js';
import { ClientCertificateRotation, ClientCertificateStore, loadOrBootstrapClientConfig } from '../kubelet/certificate/index.js';
import { runStandaloneAgent, staticPodFlagOptions, staticPodFlagsHelp, staticPodOptions } from './agent-staticpods.js';
import { ServiceAccountTokenManager } from '../kubelet/token/manager.js';
import { parsePodNetworkBackend, podNetworkFlagHelp, startPodNetwork } from './agent-podnet.js';
import { readKubeletConfigFile } from './kubelet-config-file.js';
import { runtimeCNIConfDir, type PodNetwork } from '../kubelet/network/index.js';

export const agentHelp = `Run a node agent (kubelet) that registers a node and runs the pods bound to it.

Usage:
  k8ts agent --kubeconfig FILE [flags]
  k8ts agent --pod-manifest-path DIR [flags]      (standalone: static pods only)

With --runtime simulated (the default) no container runs: pods move
Pending → Running → Ready on a script (see src/kubelet/runtime/simulated/README.md).
With --runtime cri the pods run as real containers of the CRI runtime at
--container-runtime-endpoint (containerd 1.6+); with --runtime process each
container's command and args run as host processes in the host's network (the
image is not used; see src/kubelet/runtime/process/README.md). Add-on pods
(every container on the image k8ts.local/k8ts:<tag>, e.g. kube-proxy and
coredns) run on the process runtime on a cri node too, their command "k8ts"
being this installation's binary. With either,
capacity, OS image and kernel come from the host. Either way the node heartbeats through its Lease in
kube-node-lease and posts its status.

Flags:
      --kubeconfig string                   kubeconfig with the API server and credentials (required unless standalone)
      --bootstrap-kubeconfig string         kubeconfig with a bootstrap token: used when --kubeconfig is missing or its client
                                            certificate has expired, to get a certificate through a CSR; --kubeconfig is then
                                            written pointing at it, and the certificate is rotated before it expires
      --cert-dir string                     where the client certificate is kept, as kubelet-client-current.pem
                                            (default "<root-dir>/pki")
      --node-name string                    name of the Node (default: the host name)
      --runtime string                      container runtime: simulated, cri or process (default "simulated")
      --container-runtime-endpoint string   cri: the runtime's socket (default "unix:///run/containerd/containerd.sock")
      --static-pod-runtime string           the runtime of the control plane's static pods (--pod-manifest-path, labelled
                                            tier=control-plane as kubeadm's) when it is not --runtime's: e.g. process, so a
                                            control plane runs as host processes while the node's other pods, user static
                                            pods included, run on --runtime cri (default: --runtime)
      --root-dir string                     cri, process: the kubelet's directory, volumes live under it (default "/var/lib/kubelet")
      --labels, --node-labels string        labels added at registration, k=v,k2=v2
      --register-with-taints string         taints added at registration, k=v:Effect,k2:Effect
      --control-plane                       register as a control-plane node (label node-role.kubernetes.io/control-plane
                                            and taint node-role.kubernetes.io/control-plane:NoSchedule)
      --max-pods int                        pods the node can run (default 110)
      --cpu string                          cpu capacity (default "4"; cri, process: the host's)
      --memory string                       memory capacity (default "8Gi"; cri, process: the host's)
      --ephemeral-storage string            ephemeral-storage capacity (default "100Gi"; cri, process: the root dir's filesystem)
      --node-ip string                      InternalIP of the node (default: derived from the name, in 172.16.0.0/12;
                                            cri, process: the host's first non-loopback IPv4 address, else 127.0.0.1)
      --pod-cidr string                     pod CIDR of the node (default: derived from the name, 10.244.x.0/24;
                                            cri, process: none, the CNI configuration decides pod addresses)
      --start-delay duration                simulated: pod bound → containers running (default 0s)
      --ready-delay duration                simulated: containers running → ready (default 0s)
      --delete-delay duration               longest time a pod takes to stop when deleted (default: simulated 200ms,
                                            cri the pod's grace period)
      --node-lease-duration-seconds int     Lease duration; renewed every quarter of it (default 40)
      --node-status-report-frequency dur    re-post an unchanged node status after this long (default 5m0s)
      --kube-api-qps int                    client QPS against the API server (default 50)
      --kube-api-burst int                  client burst (default 100)
      --metrics-port int                    serve Prometheus /metrics on 127.0.0.1:PORT (default: off)
      --kubelet-port int                    port of the kubelet's HTTPS API (logs, health, pods); 0 picks a free one (default 10250)
      --address string                      address the kubelet's API listens on (default "0.0.0.0")
      --client-ca-file string               CA bundle whose client certificates may call the kubelet's API
                                            (default: the cluster CA of --kubeconfig); bearer tokens are checked
                                            by TokenReview; other callers get 401. Every request is authorized
                                            by a SubjectAccessReview (nodes/proxy, nodes/stats, ...; else 403)
      --tls-cert-file string                the kubelet API's serving certificate (default: a self-signed one made at start)
      --tls-private-key-file string         its key
      --pod-logs-dir string                 where container logs are written (default: cri, process "/var/log/pods",
                                            simulated "$TMPDIR/k8ts-kubelet-<node>/pods")
      --no-events                           do not record kubelet events
      --cluster-dns strings                 cri: the cluster DNS servers, comma-separated, for pods with dnsPolicy ClusterFirst
                                            (default: none; such pods then use the node's resolver, with a MissingClusterDNS warning)
      --cluster-domain string               cri: the cluster's DNS domain, for the search paths of ClusterFirst pods (default "cluster.local")
      --config string                       a KubeletConfiguration file (kubeadm's /var/lib/kubelet/config.yaml): clusterDNS and
                                            clusterDomain are read from it; the flags above win over it
      --resolv-conf string                  cri: the node's resolver configuration, the base of dnsPolicy Default; "" for none
                                            (default "/etc/resolv.conf")
${podNetworkFlagHelp}
${staticPodFlagsHelp}
  -h, --help                                help for agent`;

export async function runAgent(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args, strict: true, allowPositionals: false,
    options: {
      kubeconfig: { type: 'string' }, 'bootstrap-kubeconfig': { type: 'string' }, 'cert-dir': { type: 'string' }, 'node-name': { type: 'string' }, runtime: { type: 'string', default: 'simulated' },
      'static-pod-runtime': { type: 'string' },
      labels: { type: 'string' }, 'node-labels': { type: 'string' }, 'register-with-taints': { type: 'string' }, 'control-plane': { type: 'boolean' },
      'max-pods': { type: 'string', default: '110' }, cpu: { type: 'string' }, memory: { type: 'string' },
      'ephemeral-storage': { type: 'string' }, 'node-ip': { type: 'string' }, 'pod-cidr': { type: 'string' },
      'start-delay': { type: 'string', default: '0s' }, 'ready-delay': { type: 'string', default: '0s' }, 'delete-delay': { type: 'string' },
      'container-runtime-endpoint': { type: 'string', default: 'unix:///run/containerd/containerd.sock' },
      'root-dir': { type: 'string', default: '/var/lib/kubelet' },
      'node-lease-duration-seconds': { type: 'string', default: '40' }, 'node-status-report-frequency': { type: 'string', default: '5m' },
      'kube-api-qps': { type: 'string', default: '50' }, 'kube-api-burst': { type: 'string', default: '100' },
      'metrics-port': { type: 'string' }, 'no-events': { type: 'boolean' },
      'kubelet-port': { type: 'string', default: '10250' }, address: { type: 'string', default: '0.0.0.0' }, 'client-ca-file': { type: 'string' },
      'tls-cert-file': { type: 'string' }, 'tls-private-key-file': { type: 'string' }, 'pod-logs-dir': { type: 'string' },
      'cluster-dns': { type: 'string' }, 'cluster-domain': { type: 'string' }, config: { type: 'string' },
      'resolv-conf': { type: 'string', default: '/etc/resolv.conf' }, 'pod-network-backend': { type: 'string', default: 'none' },
      ...staticPodFlagOptions,
    },
  });
  const staticPods = staticPodOptions(values);
  requireOneOf(values, ['kubeconfig', 'pod-manifest-path']);
  for (const r of [values.runtime!, values['static-pod-runtime'] ?? values.runtime!]) {
    if (!['simulated', 'cri', 'process'].includes(r)) { console.error(`Error: runtime "${r}" is not supported (available: simulated, cri, process)`); return 1; }
  }
  let dnsFlags: typeof values;
  try { dnsFlags = withKubeletConfigFile(values); } catch (e) { console.error(`Error: ${(e as Error).message}`); return 1; }
  const real = values.runtime !== 'simulated';
  let podNetworkBackend: ReturnType<typeof parsePodNetworkBackend>;
  try { podNetworkBackend = parsePodNetworkBackend(values['pod-network-backend']); } catch (e) { console.error(`Error: ${(e as Error).message}`); return 1; }
  if (podNetworkBackend !== 'none' && values.runtime !== 'cri') { console.error('Error: --pod-network-backend needs --runtime cri'); return 1; }
  const nodeName = (values['node-name'] ?? hostname()).toLowerCase();
  const index = indexFromName(nodeName);
  const leaseSeconds = parseCountFlag('node-lease-duration-seconds', values['node-lease-duration-seconds'], 1);
  const logger = createLogger('kubelet');
  const certDir = values['cert-dir'] ?? join(values['root-dir']!, 'pki');
  const bootstrapping = !!values['bootstrap-kubeconfig'];
  const clientConfig = !values.kubeconfig ? undefined : bootstrapping
    ? await loadOrBootstrapClientConfig({ kubeconfigPath: values.kubeconfig, bootstrapKubeconfigPath: values['bootstrap-kubeconfig']!, certDir, nodeName, logger })
    : loadKubeconfig(values.kubeconfig);
  const clients = clientConfig && new Clientset(clientConfig, {
    qps: parseCountFlag('kube-api-qps', values['kube-api-qps']), burst: parseCountFlag('kube-api-burst', values['kube-api-burst']), userAgent: `k8ts-agent/${nodeName}`,
  });
  const metrics = createKubeletMetrics();
  const internalIP = values['node-ip'] ?? (real ? hostIPv4() : nodeIPForIndex(index));
  const podCIDR = values['pod-cidr'] ?? (real ? undefined : podCIDRForIndex(index));
  const rootDir = values['root-dir']!;
  const podLogsDir = values['pod-logs-dir'] ?? (real ? '/var/log/pods' : join(tmpdir(), `k8ts-kubelet-${nodeName}`, 'pods'));
  const host = real ? (mkdirSync(rootDir, { recursive: true }), hostInfo(rootDir)) : undefined;
  const deleteDelay = values['delete-delay'] ?? (real ? undefined : '200ms');
  const tokens = clients && new ServiceAccountTokenManager((ns, name, tr) =>
    clients.resource('serviceaccounts').createSub(ns, name, 'token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', ...tr }));
  const volumes: PodObjectGetter | undefined = clients && {
    claim: (ns, name) => clients.resource('persistentvolumeclaims').get(ns, name), volume: (name) => clients.resource('persistentvolumes').get(undefined, name),
    configMap: (ns, name) => clients.resource('configmaps').get(ns, name), secret: (ns, name) => clients.resource('secrets').get(ns, name),
    service: (ns, name) => clients.resource('services').get(ns, name),
    services: async (ns) => (await clients.resource('services').list(ns)).items,
    serviceAccountToken: (ns, name, tr) => tokens!.getServiceAccountToken(ns, name, tr),
  };
  const makeRuntime = async (kind: string): Promise<PodRuntime> => kind === 'cri'
    ? CRIRuntime.connect({
      endpoint: values['container-runtime-endpoint']!, nodeName, hostIP: internalIP, podLogsDir, rootDir,
      logger: logger.with('cri'), timers: realTimers, dns: kubeletDNSOptions(dnsFlags, internalIP, logger),
      ...(clients ? { volumes, tokens } : {}),
      ...(clients && !values['no-events'] ? { recorder: new EventRecorder(clients, 'kubelet', logger, nodeName) } : {}),
    })
    : kind === 'process'
      ? new ProcessRuntime({
        nodeName, hostIP: internalIP, podLogsDir, rootDir, logger: logger.with('process'), timers: realTimers, volumes, k8tsCommand: [process.execPath, cliEntry()],
      })
      : new SimulatedRuntime({
        podCIDR: podCIDR!, hostIP: internalIP, podLogsDir,
        startDelayMs: mustParseDuration('start-delay', values['start-delay']!), readyDelayMs: mustParseDuration('ready-delay', values['ready-delay']!),
      });
  let runtime: PodRuntime;
  try {
    runtime = await makeRuntime(values.runtime!);
    const staticPodRuntime = values['static-pod-runtime'] ?? values.runtime!;
    // Add-on pods (issue #21: every container on the k8ts.local/k8ts image) run as host processes of this
    // installation on a cri node; on the process and simulated runtimes they run where every pod runs.
    const addonRuntime = values.runtime === 'cri' ? 'process' : values.runtime!;
    if (staticPodRuntime === addonRuntime && addonRuntime !== values.runtime) {
      runtime = new SplitRuntime(runtime, await makeRuntime(addonRuntime), (pod) => isControlPlaneStaticPod(pod) || isAddonPod(pod));
    } else {
      if (addonRuntime !== values.runtime) runtime = new SplitRuntime(runtime, await makeRuntime(addonRuntime), isAddonPod);
      if (staticPodRuntime !== values.runtime) runtime = new SplitRuntime(runtime, await makeRuntime(staticPodRuntime), isControlPlaneStaticPod);
    }
  } catch (e) {
    clients?.close();
    // Upstream kubelet's words when the runtime does not answer the CRI v1 Version call.
    console.error(`Error: validate service connection: validate CRI v1 runtime API for endpoint "${values['container-runtime-endpoint']}": ${goGRPCError(e)}`);
    return 1;
  }
  const nodeOpts: NodeAgentOptions = {
    nodeName, internalIP, podCIDR, simulated: !real,
    ...(host ? { osImage: host.osImage, kernelVersion: host.kernelVersion, allocatable: host.allocatable, measurePressure: () => measureHost(rootDir) } : {}),
    labels: { ...parseLabelsFlag('labels', values.labels), ...parseLabelsFlag('node-labels', values['node-labels']) },
    taints: parseTaintsFlag('register-with-taints', values['register-with-taints']), controlPlane: !!values['control-plane'],
    pods: parseCountFlag('max-pods', values['max-pods'], 1), cpu: values.cpu ?? host?.capacity.cpu, memory: values.memory ?? host?.capacity.memory,
    ephemeralStorage: values['ephemeral-storage'] ?? host?.capacity['ephemeral-storage'],
    leaseDurationSeconds: leaseSeconds, renewIntervalMs: (leaseSeconds * 1000) / 4,
    nodeStatusReportFrequencyMs: mustParseDuration('node-status-report-frequency', values['node-status-report-frequency']!),
    deleteDelayMs: deleteDelay === undefined ? Number.MAX_SAFE_INTEGER : mustParseDuration('delete-delay', deleteDelay), events: !values['no-events'], staticPods,
  };
  if (!clients || !clientConfig) return runStandaloneAgent({ runtime, logger }, { ...nodeOpts, staticPods: staticPods! }, (stop) => waitForSignal(logger, stop));
  // The kubelet's API listens before the node registers, so the node reports its real port.
  // The kubelet API's reviews get their own client and rate limit: a caller spraying bearer tokens then queues
  // TokenReviews behind each other, not the node's heartbeats and status (upstream keeps heartbeats on a client of their own).
  const reviewClients = new Clientset(clientConfig, {
    qps: parseCountFlag('kube-api-qps', values['kube-api-qps']), burst: parseCountFlag('kube-api-burst', values['kube-api-burst']), userAgent: `k8ts-agent/${nodeName}/auth`,
  });
  const kubelet = await startKubeletServer(values, { clusterCAPem: clientConfig.caPem, clients: reviewClients, nodeName, internalIP }, logger)
    .catch((e) => { reviewClients.close(); throw e; });
  const kubeletPort = kubelet.port;
  const agent = new NodeAgent({ clients, runtime, logger, metrics }, { ...nodeOpts, kubeletPort });
  let metricsServer: MetricsServer | undefined;
  let podNetwork: PodNetwork | undefined;
  // A bootstrapped kubelet renews its client certificate itself and switches its connections to the new one.
  const rotation = bootstrapping ? new ClientCertificateRotation({
    csrs: clients.resource('certificatesigningrequests'), store: new ClientCertificateStore(certDir), nodeName, logger: logger.with('certificate'),
    onRotated: (certPem, keyPem) => { clients.rest.setClientCertificate(certPem, keyPem); reviewClients.rest.setClientCertificate(certPem, keyPem); },
  }) : undefined;
  try {
    if (values['metrics-port'] !== undefined) metricsServer = await serveMetrics(metrics.registry, parseCountFlag('metrics-port', values['metrics-port']));
    kubelet.server.setHost(agent.kubeletHost());
    // The pod network first: a stale CNI network is gone before a pod starts.
    if (podNetworkBackend !== 'none') {
      podNetwork = startPodNetwork({
        backend: podNetworkBackend, clients, cniConfDir: await runtimeCNIConfDir(values['container-runtime-endpoint']!), rootDir, nodeName,
        nodeIP: internalIP, logger: logger.with('podnet'),
      });
    }
    await agent.start();
    rotation?.start();
  } catch (e) {
    await podNetwork?.stop();
    rotation?.stop();
    await agent.stop().catch(() => {});
    await kubelet.server.close();
    await metricsServer?.close();
    clients.close();
    reviewClients.close();
    throw e;
  }
  logger.info(real ? 'node agent running' : 'node agent running (simulated runtime: no containers really run)', {
    node: nodeName, internalIP, podCIDR, runtime: runtime.version, metricsPort: metricsServer?.port, kubeletPort, podLogsDir,
  });
  return waitForSignal(logger, async () => {
    await podNetwork?.stop();
    rotation?.stop();
    await agent.stop();
    await kubelet.server.close();
    await metricsServer?.close();
    clients.close();
    reviewClients.close();
  });
}

/**
 * The kubelet's HTTPS API on --address:--kubelet-port: serving certificate
 * from the flags or self-signed, callers authenticated against
 * --client-ca-file or the cluster CA of the kubeconfig, or by a bearer token
 * the API server's TokenReview knows, and authorized by SubjectAccessReview;
 * both reviews are sent with the agent's own credentials.
 */
async function startKubeletServer(values: Record<string, string | boolean | undefined>,
  node: { clusterCAPem: string | undefined; clients: Clientset; nodeName: string; internalIP: string },
  logger: ReturnType<typeof createLogger>): Promise<{ server: KubeletServer; port: number }> {
  const { clusterCAPem, clients, nodeName, internalIP } = node;
  const caFile = values['client-ca-file'] as string | undefined;
  const clientCAPem = caFile ? readFileSync(caFile, 'utf8') : clusterCAPem;
  if (!clientCAPem) throw new Error('the kubelet API needs a client CA: pass --client-ca-file, or a kubeconfig with certificate-authority data');
  const certFile = values['tls-cert-file'] as string | undefined;
  const keyFile = values['tls-private-key-file'] as string | undefined;
  if (!!certFile !== !!keyFile) throw new Error('--tls-cert-file and --tls-private-key-file go together');
  const address = values.address as string;
  const serving = certFile && keyFile
    ? { certPem: readFileSync(certFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8') }
    : await selfSignedServingCertificate(nodeName, [internalIP, address]);
  const auth = createKubeletAuth(clientCAPem, reviewerFor(clients));
  const server = createKubeletServer({ nodeName, clientCAPem, auth, ...serving, logger: logger.with('server') });
  const addr = await server.listen(parseCountFlag('kubelet-port', values['kubelet-port'] as string), address);
  return { server, port: addr.port };
}

/** Resolves with the exit code once SIGTERM or SIGINT has run `shutdown`. */
export function waitForSignal(logger: ReturnType<typeof createLogger>, shutdown: () => Promise<void>): Promise<number> {
  return new Promise<number>((resolve) => {
    const onSignal = (sig: NodeJS.Signals) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      logger.info('shutting down', { signal: sig });
      shutdown().then(() => resolve(0), (e) => { logger.error('shutdown failed', { err: e }); resolve(1); });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

/** The host's first non-internal IPv4 address, else 127.0.0.1 (upstream picks the default route's address). */
function hostIPv4(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/** The DNS flags, filled from --config's KubeletConfiguration where the command line does not give them. */
function withKubeletConfigFile<T extends { config?: string; 'cluster-dns'?: string; 'cluster-domain'?: string }>(values: T): T {
  if (!values.config) return values;
  const file = readKubeletConfigFile(values.config);
  return {
    ...values,
    'cluster-dns': values['cluster-dns'] ?? file.clusterDNS?.join(','),
    'cluster-domain': values['cluster-domain'] ?? file.clusterDomain,
  };
}

/** --cluster-dns, --cluster-domain and --resolv-conf; the resolver file is read once, at start. */
function kubeletDNSOptions(values: { 'cluster-dns'?: string; 'cluster-domain'?: string; 'resolv-conf'?: string }, nodeIP: string, logger: Logger): KubeletDNSOptions {
  const clusterDNS = (values['cluster-dns'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const ip of clusterDNS) {
    if (isIP(ip) === 0) throw new Error(`invalid value for --cluster-dns: ${JSON.stringify(ip)} is not an IP address`);
  }
  const path = values['resolv-conf'] ?? '/etc/resolv.conf';
  let hostResolvConf: string | undefined;
  if (path !== '') {
    try {
      hostResolvConf = readFileSync(path, 'utf8');
    } catch (e) {
      logger.warn('cannot read the node\'s resolver configuration; pods with dnsPolicy Default get no name servers', { path, err: (e as Error).message });
      hostResolvConf = '';
    }
  }
  return { clusterDNS, clusterDomain: values['cluster-domain'] ?? 'cluster.local', hostResolvConf, nodeIPs: [nodeIP] };
}
