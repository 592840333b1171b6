/** `k8ts sim`: many simulated nodes in one process (KWOK-style), for scale tests and demos. */
import { requireFlags } from './flag-errors.js';
import { parseArgs } from 'node:util';
import { createLogger } from '../util/log.js';
import type { MetricsServer } from '../kubelet/index.js';
import { parseCountFlag, parseLabelsFlag, parseTaintsFlag } from '../kubelet/flags.js';
import { componentUserAgent } from '../util/user-agent.js';

export const simHelp = `Run many simulated nodes in one process.

Usage:
  k8ts sim --kubeconfig FILE --nodes N [flags]

Registers N nodes named <prefix><index>, each heartbeating through its Lease
and running the pods bound to it with the simulated runtime (no containers run;
see src/kubelet/runtime/simulated/README.md for the pod annotations that script
delays, failure and completion). One pod watch, one node watch and one heartbeat
loop serve all nodes, so thousands are cheap. Runs until SIGTERM or SIGINT,
then stops heartbeating (the nodes go NotReady) or, with --cleanup, deletes them.

Flags:
      --kubeconfig string                 kubeconfig with the API server and credentials (required)
      --nodes int                         number of nodes (required)
      --prefix string                     node name prefix (default "sim-node-")
      --start-index int                   index of the first node (default 0)
      --control-plane int                 how many of the first nodes are control-plane nodes (default 0)
      --labels, --node-labels string      labels added to every node, k=v,k2=v2
      --register-with-taints string       taints added to every node, k=v:Effect,...
      --cpu string                        cpu capacity per node (default "4")
      --memory string                     memory capacity per node (default "8Gi")
      --max-pods int                      pods per node (default 110)
      --ephemeral-storage string          ephemeral-storage per node (default "100Gi")
      --start-delay duration              pod bound → containers running (default 0s)
      --ready-delay duration              containers running → ready (default 0s)
      --delete-delay duration             longest time a pod takes to stop when deleted (default 200ms)
      --node-lease-duration-seconds int   Lease duration; renewed every quarter of it (default 40)
      --heartbeat-concurrency int         lease renewals in flight at once (default 64)
      --kube-api-qps int                  client QPS for all nodes together, 0 = unlimited (default 0)
      --kube-api-burst int                client burst (default 0: twice the QPS)
      --cleanup                           delete the nodes and their Leases on exit
      --no-events                         do not record kubelet events (recommended for thousands of nodes)
      --metrics-port int                  serve Prometheus /metrics on 127.0.0.1:PORT (default: off)
  -h, --help                              help for sim`;

export async function runSim(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args, strict: true, allowPositionals: false,
    options: {
      kubeconfig: { type: 'string' }, nodes: { type: 'string' }, prefix: { type: 'string', default: 'sim-node-' },
      'start-index': { type: 'string', default: '0' }, 'control-plane': { type: 'string', default: '0' },
      labels: { type: 'string' }, 'node-labels': { type: 'string' }, 'register-with-taints': { type: 'string' },
      cpu: { type: 'string', default: '4' }, memory: { type: 'string', default: '8Gi' }, 'max-pods': { type: 'string', default: '110' },
      'ephemeral-storage': { type: 'string', default: '100Gi' },
      'start-delay': { type: 'string', default: '0s' }, 'ready-delay': { type: 'string', default: '0s' }, 'delete-delay': { type: 'string', default: '200ms' },
      'node-lease-duration-seconds': { type: 'string', default: '40' }, 'heartbeat-concurrency': { type: 'string', default: '64' },
      'kube-api-qps': { type: 'string', default: '0' }, 'kube-api-burst': { type: 'string', default: '0' },
      cleanup: { type: 'boolean' }, 'no-events': { type: 'boolean' }, 'metrics-port': { type: 'string' },
    },
  });
  requireFlags(values, ['kubeconfig', 'nodes']);
  const count = parseCountFlag('nodes', values.nodes);
  const leaseSeconds = parseCountFlag('node-lease-duration-seconds', values['node-lease-duration-seconds'], 1);
  const qps = parseCountFlag('kube-api-qps', values['kube-api-qps']);
  const burst = parseCountFlag('kube-api-burst', values['kube-api-burst']);
  // The client and the kubelet's code load once the flags are good (`k8ts sim --help` and flag errors answer without them).
  const [{ Clientset, loadKubeconfig }, { NodeSimulator, createKubeletMetrics, serveMetrics, mustParseDuration }, { onShutdownSignal }] =
    await Promise.all([import('../client/index.js'), import('../kubelet/index.js'), import('./shutdown-signal.js')]);
  const logger = createLogger('sim');
  const clients = new Clientset(loadKubeconfig(values.kubeconfig), { qps, burst: burst || undefined, userAgent: componentUserAgent('kubelet') });
  const metrics = createKubeletMetrics();
  const sim = new NodeSimulator(clients, {
    count, namePrefix: values.prefix, startIndex: parseCountFlag('start-index', values['start-index']),
    controlPlane: parseCountFlag('control-plane', values['control-plane']),
    labels: { ...parseLabelsFlag('labels', values.labels), ...parseLabelsFlag('node-labels', values['node-labels']) },
    taints: parseTaintsFlag('register-with-taints', values['register-with-taints']),
    cpu: values.cpu, memory: values.memory, pods: parseCountFlag('max-pods', values['max-pods'], 1), ephemeralStorage: values['ephemeral-storage'],
    startDelayMs: mustParseDuration('start-delay', values['start-delay']!), readyDelayMs: mustParseDuration('ready-delay', values['ready-delay']!),
    deleteDelayMs: mustParseDuration('delete-delay', values['delete-delay']!),
    leaseDurationSeconds: leaseSeconds, renewIntervalMs: (leaseSeconds * 1000) / 4,
    heartbeatConcurrency: parseCountFlag('heartbeat-concurrency', values['heartbeat-concurrency'], 1),
    events: !values['no-events'], logger, metrics,
    // Thousands of nodes' Lease renewals and status writes: undici's pool, as bench/daemonset.ts measures it.
    lightWrites: true,
  });
  let metricsServer: MetricsServer | undefined;
  const shutdown = async () => {
    await sim.close({ deleteNodes: !!values.cleanup });
    await metricsServer?.close();
    clients.close();
  };
  try {
    if (values['metrics-port'] !== undefined) metricsServer = await serveMetrics(metrics.registry, parseCountFlag('metrics-port', values['metrics-port']));
    await sim.start();
  } catch (e) {
    await shutdown().catch(() => {});
    throw e;
  }
  logger.info('simulated nodes running (no containers really run)', { nodes: sim.size, prefix: values.prefix, metricsPort: metricsServer?.port });
  return onShutdownSignal(logger, shutdown);
}
