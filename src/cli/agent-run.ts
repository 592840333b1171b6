/** `k8ts agent`'s body: what runs once its flags are parsed (agent.ts holds the help and the flags, so they answer without this module). */
import { requireOneOf } from './flag-errors.js';
import type { AgentFlags } from './agent.js';
import { onShutdownSignal } from './shutdown-signal.js';
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
import { parseCountFlag, parseLabelsFlag, parseTaintsFlag, parseUnsafeSysctlsFlag } from '../kubelet/flags.js';
import { createKubeletAuth, createKubeletServer, reviewerFor, selfSignedServingCertificate, type KubeletServer } from '../kubelet/server/index.js';
import type { NodeAgentOptions } from '../kubelet/index.js';
import { ClientCertificateRotation, ClientCertificateStore, loadOrBootstrapClientConfig } from '../kubelet/certificate/index.js';
import { runStandaloneAgent, staticPodOptions } from './agent-staticpods.js';
import { ServiceAccountTokenManager } from '../kubelet/token/manager.js';
import { parsePodNetworkBackend, startPodNetwork } from './agent-podnet.js';
import { readKubeletConfigFile } from './kubelet-config-file.js';
import { runtimeCNIConfDir, type PodNetwork } from '../kubelet/network/index.js';
import { componentUserAgent } from '../util/user-agent.js';


/** `k8ts agent` with its flags parsed (agent.ts): everything the agent loads, loaded once the flags parse. */
export async function runAgentWith(values: AgentFlags): Promise<number> {
  const staticPods = staticPodOptions(values);
  requireOneOf(values, ['kubeconfig', 'pod-manifest-path']);
  for (const r of [values.runtime!, values['static-pod-runtime'] ?? values.runtime!]) {
    if (!['simulated', 'cri', 'process'].includes(r)) { console.error(`Error: runtime "${r}" is not supported (available: simulated, cri, process)`); return 1; }
  }
  let dnsFlags: typeof values;
  try { dnsFlags = withKubeletConfigFile(values); } catch (e) { console.error(`Error: ${(e as Error).message}`); return 1; }
  let sysctls: ReturnType<typeof parseUnsafeSysctlsFlag>;
  try { sysctls = parseUnsafeSysctlsFlag(dnsFlags['allowed-unsafe-sysctls']); } catch (e) { console.error(`Error: failed to run Kubelet: failed to create kubelet: ${(e as Error).message}`); return 1; }
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
    qps: parseCountFlag('kube-api-qps', values['kube-api-qps']), burst: parseCountFlag('kube-api-burst', values['kube-api-burst']), userAgent: componentUserAgent('kubelet', nodeName),
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
    endpointSlices: async (ns, svc) => (await clients.resource('endpointslices').list(ns, { labelSelector: `kubernetes.io/service-name=${svc}` })).items,
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
        podCIDR: podCIDR!, hostIP: internalIP, podLogsDir, objects: volumes, nodeName, usage: { cpu: values.cpu, memory: values.memory },
        startDelayMs: mustParseDuration('start-delay', values['start-delay']!), readyDelayMs: mustParseDuration('ready-delay', values['ready-delay']!),
        clusterDNS: dnsFlags['cluster-dns'] ? kubeletDNSOptions(dnsFlags, internalIP, logger).clusterDNS : undefined,
        // A pod's https to the kubernetes Service goes where this kubelet's own requests go.
        apiServer: clientConfig?.server.startsWith('https://') ? clientConfig.server : undefined,
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
    deleteDelayMs: deleteDelay === undefined ? Number.MAX_SAFE_INTEGER : mustParseDuration('delete-delay', deleteDelay), events: !values['no-events'], staticPods, sysctls,
  };
  if (!clients || !clientConfig) return runStandaloneAgent({ runtime, logger }, { ...nodeOpts, staticPods: staticPods! }, (stop) => onShutdownSignal(logger, stop));
  // The kubelet's API listens before the node registers, so the node reports its real port.
  // The kubelet API's reviews get their own client and rate limit: a caller spraying bearer tokens then queues
  // TokenReviews behind each other, not the node's heartbeats and status (upstream keeps heartbeats on a client of their own).
  const reviewClients = new Clientset(clientConfig, {
    qps: parseCountFlag('kube-api-qps', values['kube-api-qps']), burst: parseCountFlag('kube-api-burst', values['kube-api-burst']), userAgent: componentUserAgent('kubelet', `${nodeName}/auth`),
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
  return onShutdownSignal(logger, async () => {
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


/** The host's first non-internal IPv4 address, else 127.0.0.1 (upstream picks the default route's address). */
function hostIPv4(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/** The DNS and sysctl flags, filled from --config's KubeletConfiguration where the command line does not give them. */
function withKubeletConfigFile<T extends { config?: string; 'cluster-dns'?: string; 'cluster-domain'?: string; 'allowed-unsafe-sysctls'?: string }>(values: T): T {
  if (!values.config) return values;
  const file = readKubeletConfigFile(values.config);
  return {
    ...values,
    'cluster-dns': values['cluster-dns'] ?? file.clusterDNS?.join(','),
    'cluster-domain': values['cluster-domain'] ?? file.clusterDomain,
    'allowed-unsafe-sysctls': values['allowed-unsafe-sysctls'] ?? file.allowedUnsafeSysctls?.join(','),
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
