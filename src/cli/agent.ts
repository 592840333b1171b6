/** `k8ts agent`: one node agent (kubelet) against any API server; the simulated runtime for now. */
import { parseArgs } from 'node:util';
import { hostname } from 'node:os';
import { Clientset, loadKubeconfig } from '../client/index.js';
import { createLogger } from '../util/log.js';
import {
  NodeAgent, SimulatedRuntime, createKubeletMetrics, serveMetrics, indexFromName, nodeIPForIndex, podCIDRForIndex, mustParseDuration,
  type MetricsServer,
} from '../kubelet/index.js';
import { parseCountFlag, parseLabelsFlag, parseTaintsFlag } from '../kubelet/flags.js';
import type { NodeAgentOptions } from '../kubelet/index.js';
import { runStandaloneAgent, staticPodFlagOptions, staticPodFlagsHelp, staticPodOptions } from './agent-staticpods.js';

export const agentHelp = `Run a node agent (kubelet) that registers a node and runs the pods bound to it.

Usage:
  k8ts agent --kubeconfig FILE [flags]
  k8ts agent --pod-manifest-path DIR [flags]      (standalone: static pods only)

With --runtime simulated (the only runtime so far) no container runs: pods move
Pending → Running → Ready on a script (see src/kubelet/runtime/simulated/README.md),
the node heartbeats through its Lease in kube-node-lease and posts its status.

Flags:
      --kubeconfig string                   kubeconfig with the API server and credentials (required unless standalone)
      --node-name string                    name of the Node (default: the host name)
      --runtime string                      container runtime: simulated (default "simulated")
      --labels, --node-labels string        labels added at registration, k=v,k2=v2
      --register-with-taints string         taints added at registration, k=v:Effect,k2:Effect
      --control-plane                       register as a control-plane node (label node-role.kubernetes.io/control-plane
                                            and taint node-role.kubernetes.io/control-plane:NoSchedule)
      --max-pods int                        pods the node can run (default 110)
      --cpu string                          cpu capacity (default "4")
      --memory string                       memory capacity (default "8Gi")
      --ephemeral-storage string            ephemeral-storage capacity (default "100Gi")
      --node-ip string                      InternalIP of the node (default: derived from the name, in 172.16.0.0/12)
      --pod-cidr string                     pod CIDR of the node (default: derived from the name, 10.244.x.0/24)
      --start-delay duration                simulated: pod bound → containers running (default 0s)
      --ready-delay duration                simulated: containers running → ready (default 0s)
      --delete-delay duration               simulated: longest time a pod takes to stop when deleted (default 200ms)
      --node-lease-duration-seconds int     Lease duration; renewed every quarter of it (default 40)
      --node-status-report-frequency dur    re-post an unchanged node status after this long (default 5m0s)
      --kube-api-qps int                    client QPS against the API server (default 50)
      --kube-api-burst int                  client burst (default 100)
      --metrics-port int                    serve Prometheus /metrics on 127.0.0.1:PORT (default: off)
      --no-events                           do not record kubelet events
${staticPodFlagsHelp}
  -h, --help                                help for agent`;

export async function runAgent(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args, strict: true, allowPositionals: false,
    options: {
      kubeconfig: { type: 'string' }, 'node-name': { type: 'string' }, runtime: { type: 'string', default: 'simulated' },
      labels: { type: 'string' }, 'node-labels': { type: 'string' }, 'register-with-taints': { type: 'string' }, 'control-plane': { type: 'boolean' },
      'max-pods': { type: 'string', default: '110' }, cpu: { type: 'string', default: '4' }, memory: { type: 'string', default: '8Gi' },
      'ephemeral-storage': { type: 'string', default: '100Gi' }, 'node-ip': { type: 'string' }, 'pod-cidr': { type: 'string' },
      'start-delay': { type: 'string', default: '0s' }, 'ready-delay': { type: 'string', default: '0s' }, 'delete-delay': { type: 'string', default: '200ms' },
      'node-lease-duration-seconds': { type: 'string', default: '40' }, 'node-status-report-frequency': { type: 'string', default: '5m' },
      'kube-api-qps': { type: 'string', default: '50' }, 'kube-api-burst': { type: 'string', default: '100' },
      'metrics-port': { type: 'string' }, 'no-events': { type: 'boolean' },
      ...staticPodFlagOptions,
    },
  });
  const staticPods = staticPodOptions(values);
  if (!values.kubeconfig && !staticPods) { console.error('Error: --kubeconfig is required (or --pod-manifest-path for a standalone kubelet)'); return 1; }
  if (values.runtime !== 'simulated') { console.error(`Error: runtime "${values.runtime}" is not supported yet (available: simulated)`); return 1; }
  const nodeName = (values['node-name'] ?? hostname()).toLowerCase();
  const index = indexFromName(nodeName);
  const leaseSeconds = parseCountFlag('node-lease-duration-seconds', values['node-lease-duration-seconds'], 1);
  const logger = createLogger('kubelet');
  const kubeconfig = values.kubeconfig;
  const clients = kubeconfig && new Clientset(loadKubeconfig(kubeconfig), {
    qps: parseCountFlag('kube-api-qps', values['kube-api-qps']), burst: parseCountFlag('kube-api-burst', values['kube-api-burst']), userAgent: `k8ts-agent/${nodeName}`,
  });
  const metrics = createKubeletMetrics();
  const internalIP = values['node-ip'] ?? nodeIPForIndex(index);
  const podCIDR = values['pod-cidr'] ?? podCIDRForIndex(index);
  const runtime = new SimulatedRuntime({
    podCIDR, hostIP: internalIP,
    startDelayMs: mustParseDuration('start-delay', values['start-delay']!), readyDelayMs: mustParseDuration('ready-delay', values['ready-delay']!),
  });
  const nodeOpts: NodeAgentOptions = {
    nodeName, internalIP, podCIDR,
    labels: { ...parseLabelsFlag('labels', values.labels), ...parseLabelsFlag('node-labels', values['node-labels']) },
    taints: parseTaintsFlag('register-with-taints', values['register-with-taints']), controlPlane: !!values['control-plane'],
    pods: parseCountFlag('max-pods', values['max-pods'], 1), cpu: values.cpu, memory: values.memory, ephemeralStorage: values['ephemeral-storage'],
    leaseDurationSeconds: leaseSeconds, renewIntervalMs: (leaseSeconds * 1000) / 4,
    nodeStatusReportFrequencyMs: mustParseDuration('node-status-report-frequency', values['node-status-report-frequency']!),
    deleteDelayMs: mustParseDuration('delete-delay', values['delete-delay']!), events: !values['no-events'], staticPods,
  };
  if (!clients) return runStandaloneAgent({ runtime, logger }, { ...nodeOpts, staticPods: staticPods! }, (stop) => waitForSignal(logger, stop));
  const agent = new NodeAgent({ clients, runtime, logger, metrics }, nodeOpts);
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
  logger.info('node agent running (simulated runtime: no containers really run)', {
    node: nodeName, internalIP, podCIDR, metricsPort: metricsServer?.port,
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
