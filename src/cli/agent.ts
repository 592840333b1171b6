/** `k8ts agent`: one node agent (kubelet) against any API server, with the simulated runtime or a CRI runtime (containerd). */
import { parseArgs } from 'node:util';
import { hostname, networkInterfaces } from 'node:os';
import { mkdirSync } from 'node:fs';
import { Clientset, loadKubeconfig } from '../client/index.js';
import { createLogger } from '../util/log.js';
import {
  NodeAgent, SimulatedRuntime, createKubeletMetrics, realTimers, serveMetrics, indexFromName, nodeIPForIndex, podCIDRForIndex, mustParseDuration,
  type MetricsServer, type PodRuntime,
} from '../kubelet/index.js';
import { CRIRuntime, goGRPCError } from '../kubelet/runtime/cri/index.js';
import { hostInfo } from '../kubelet/hostinfo.js';
import { parseCountFlag, parseLabelsFlag, parseTaintsFlag } from '../kubelet/flags.js';

export const agentHelp = `Run a node agent (kubelet) that registers a node and runs the pods bound to it.

Usage:
  k8ts agent --kubeconfig FILE [flags]

With --runtime simulated (the default) no container runs: pods move
Pending → Running → Ready on a script (see src/kubelet/runtime/simulated/README.md).
With --runtime cri the pods run as real containers of the CRI runtime at
--container-runtime-endpoint (containerd 1.6+); capacity, OS image and kernel
come from the host. Either way the node heartbeats through its Lease in
kube-node-lease and posts its status.

Flags:
      --kubeconfig string                   kubeconfig with the API server and credentials (required)
      --node-name string                    name of the Node (default: the host name)
      --runtime string                      container runtime: simulated or cri (default "simulated")
      --container-runtime-endpoint string   cri: the runtime's socket (default "unix:///run/containerd/containerd.sock")
      --root-dir string                     cri: the kubelet's directory, emptyDir volumes live under it (default "/var/lib/kubelet")
      --pod-logs-dir string                 cri: where container logs are written (default "/var/log/pods")
      --labels, --node-labels string        labels added at registration, k=v,k2=v2
      --register-with-taints string         taints added at registration, k=v:Effect,k2:Effect
      --control-plane                       register as a control-plane node (label node-role.kubernetes.io/control-plane
                                            and taint node-role.kubernetes.io/control-plane:NoSchedule)
      --max-pods int                        pods the node can run (default 110)
      --cpu string                          cpu capacity (default "4"; cri: the host's)
      --memory string                       memory capacity (default "8Gi"; cri: the host's)
      --ephemeral-storage string            ephemeral-storage capacity (default "100Gi"; cri: the root dir's filesystem)
      --node-ip string                      InternalIP of the node (default: derived from the name, in 172.16.0.0/12;
                                            cri: the host's first non-loopback IPv4 address, else 127.0.0.1)
      --pod-cidr string                     pod CIDR of the node (default: derived from the name, 10.244.x.0/24;
                                            cri: none, the CNI configuration decides pod addresses)
      --start-delay duration                simulated: pod bound → containers running (default 0s)
      --ready-delay duration                simulated: containers running → ready (default 0s)
      --delete-delay duration               longest time a pod takes to stop when deleted (default: simulated 200ms,
                                            cri the pod's grace period)
      --node-lease-duration-seconds int     Lease duration; renewed every quarter of it (default 40)
      --node-status-report-frequency dur    re-post an unchanged node status after this long (default 5m0s)
      --kube-api-qps int                    client QPS against the API server (default 50)
      --kube-api-burst int                  client burst (default 100)
      --metrics-port int                    serve Prometheus /metrics on 127.0.0.1:PORT (default: off)
      --no-events                           do not record kubelet events
  -h, --help                                help for agent`;

export async function runAgent(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args, strict: true, allowPositionals: false,
    options: {
      kubeconfig: { type: 'string' }, 'node-name': { type: 'string' }, runtime: { type: 'string', default: 'simulated' },
      labels: { type: 'string' }, 'node-labels': { type: 'string' }, 'register-with-taints': { type: 'string' }, 'control-plane': { type: 'boolean' },
      'max-pods': { type: 'string', default: '110' }, cpu: { type: 'string' }, memory: { type: 'string' },
      'ephemeral-storage': { type: 'string' }, 'node-ip': { type: 'string' }, 'pod-cidr': { type: 'string' },
      'start-delay': { type: 'string', default: '0s' }, 'ready-delay': { type: 'string', default: '0s' }, 'delete-delay': { type: 'string' },
      'container-runtime-endpoint': { type: 'string', default: 'unix:///run/containerd/containerd.sock' },
      'root-dir': { type: 'string', default: '/var/lib/kubelet' }, 'pod-logs-dir': { type: 'string', default: '/var/log/pods' },
      'node-lease-duration-seconds': { type: 'string', default: '40' }, 'node-status-report-frequency': { type: 'string', default: '5m' },
      'kube-api-qps': { type: 'string', default: '50' }, 'kube-api-burst': { type: 'string', default: '100' },
      'metrics-port': { type: 'string' }, 'no-events': { type: 'boolean' },
    },
  });
  if (!values.kubeconfig) { console.error('Error: --kubeconfig is required'); return 1; }
  if (values.runtime !== 'simulated' && values.runtime !== 'cri') { console.error(`Error: runtime "${values.runtime}" is not supported (available: simulated, cri)`); return 1; }
  const real = values.runtime === 'cri';
  const nodeName = (values['node-name'] ?? hostname()).toLowerCase();
  const index = indexFromName(nodeName);
  const leaseSeconds = parseCountFlag('node-lease-duration-seconds', values['node-lease-duration-seconds'], 1);
  const logger = createLogger('kubelet');
  const clients = new Clientset(loadKubeconfig(values.kubeconfig), {
    qps: parseCountFlag('kube-api-qps', values['kube-api-qps']), burst: parseCountFlag('kube-api-burst', values['kube-api-burst']), userAgent: `k8ts-agent/${nodeName}`,
  });
  const metrics = createKubeletMetrics();
  const internalIP = values['node-ip'] ?? (real ? hostIPv4() : nodeIPForIndex(index));
  const podCIDR = values['pod-cidr'] ?? (real ? undefined : podCIDRForIndex(index));
  const rootDir = values['root-dir']!;
  const host = real ? (mkdirSync(rootDir, { recursive: true }), hostInfo(rootDir)) : undefined;
  const deleteDelay = values['delete-delay'] ?? (real ? undefined : '200ms');
  let runtime: PodRuntime;
  try {
    runtime = real
      ? await CRIRuntime.connect({
        endpoint: values['container-runtime-endpoint']!, nodeName, hostIP: internalIP, podLogsDir: values['pod-logs-dir']!, rootDir,
        logger: logger.with('cri'), timers: realTimers,
      })
      : new SimulatedRuntime({
        podCIDR: podCIDR!, hostIP: internalIP,
        startDelayMs: mustParseDuration('start-delay', values['start-delay']!), readyDelayMs: mustParseDuration('ready-delay', values['ready-delay']!),
      });
  } catch (e) {
    clients.close();
    // Upstream kubelet's words when the runtime does not answer the CRI v1 Version call.
    console.error(`Error: validate service connection: validate CRI v1 runtime API for endpoint "${values['container-runtime-endpoint']}": ${goGRPCError(e)}`);
    return 1;
  }
  const agent = new NodeAgent({ clients, runtime, logger, metrics }, {
    nodeName, internalIP, podCIDR, simulated: !real,
    ...(host ? { osImage: host.osImage, kernelVersion: host.kernelVersion, allocatable: host.allocatable } : {}),
    labels: { ...parseLabelsFlag('labels', values.labels), ...parseLabelsFlag('node-labels', values['node-labels']) },
    taints: parseTaintsFlag('register-with-taints', values['register-with-taints']), controlPlane: !!values['control-plane'],
    pods: parseCountFlag('max-pods', values['max-pods'], 1), cpu: values.cpu ?? host?.capacity.cpu, memory: values.memory ?? host?.capacity.memory,
    ephemeralStorage: values['ephemeral-storage'] ?? host?.capacity['ephemeral-storage'],
    leaseDurationSeconds: leaseSeconds, renewIntervalMs: (leaseSeconds * 1000) / 4,
    nodeStatusReportFrequencyMs: mustParseDuration('node-status-report-frequency', values['node-status-report-frequency']!),
    deleteDelayMs: deleteDelay === undefined ? Number.MAX_SAFE_INTEGER : mustParseDuration('delete-delay', deleteDelay), events: !values['no-events'],
  });
  let metricsServer: MetricsServer | undefined;
  try {
    if (values['metrics-port'] !== undefined) metricsServer = await serveMetrics(metrics.registry, parseCountFlag('metrics-port', values['metrics-port']));
    await agent.start();
  } catch (e) {
    await agent.stop().catch(() => {});
    await metricsServer?.close();
    clients.close();
    throw e;
  }
  logger.info(real ? 'node agent running' : 'node agent running (simulated runtime: no containers really run)', {
    node: nodeName, internalIP, podCIDR, runtime: runtime.version, metricsPort: metricsServer?.port,
  });
  return waitForSignal(logger, async () => {
    await agent.stop();
    await metricsServer?.close();
    clients.close();
  });
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
