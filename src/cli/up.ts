/**
 * `k8ts up`: a local cluster in ./.k8ts for a first look with kubectl — the
 * control plane (API server, controllers, scheduler) plus simulated nodes:
 * one control-plane node, tainted as kubeadm taints it, and two workers.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { startControlPlane } from './control-plane.js';
import { Clientset } from '../client/index.js';
import { NodeSimulator } from '../kubelet/index.js';
import { createLogger } from '../util/log.js';

export const upHelp = `Start a local k8ts cluster with simulated nodes.

Usage:
  k8ts up [--data-dir .k8ts] [--port 6443] [--workers 2] [--control-plane-name control-plane]

Starts the API server on 127.0.0.1 with the controllers and the scheduler, and
registers simulated nodes: one control-plane node (label
node-role.kubernetes.io/control-plane, taint node-role.kubernetes.io/control-plane:NoSchedule)
and --workers workers named worker1, worker2, ... Their pods are simulated: they
go Running and Ready, but no container runs. Each node serves the kubelet API on
127.0.0.1 (its InternalIP): \`kubectl logs\` shows a pod's simulated lifecycle,
and exec, attach and port-forward say that no process runs. Ctrl-C stops
everything; the data stays in the data directory.`;

export async function runUp(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args, strict: true, options: {
      'data-dir': { type: 'string', default: '.k8ts' }, port: { type: 'string', default: '6443' },
      workers: { type: 'string', default: '2' }, 'control-plane-name': { type: 'string', default: 'control-plane' },
    },
  });
  const dataDir = resolve(values['data-dir']!);
  const logger = createLogger('k8ts');
  const cp = await startControlPlane({ dataDir, port: Number(values.port), bind: '127.0.0.1', logger });
  const clients = new Clientset(cp.clientConfig, { userAgent: 'k8ts-sim' });
  // Each node serves the kubelet API on 127.0.0.1 (its InternalIP), so kubectl logs shows its pods' simulated lifecycle.
  const kubelet = { address: '127.0.0.1', clientCAPem: cp.clientConfig.caPem, podLogsDir: resolve(dataDir, 'pod-logs') };
  const sim = new NodeSimulator(clients, { count: 0, logger: logger.with('sim'), kubelet });
  const workers = Number(values.workers);
  try {
    await sim.start();
    await sim.addNode(values['control-plane-name']!, { controlPlane: true });
    for (let i = 1; i <= workers; i++) await sim.addNode(`worker${i}`);
  } catch (err) {
    // A cluster whose nodes cannot register is not up: stop all of it (the caller reports why).
    await sim.close().catch(() => undefined);
    clients.close();
    await cp.close();
    throw err;
  }
  console.log(`k8ts is up at ${cp.url}

  export KUBECONFIG=${cp.kubeconfigPath}
  kubectl get nodes

The ${workers + 1} nodes are SIMULATED: pods scheduled to them are reported Running and
Ready, but no container runs (kubectl logs shows their simulated lifecycle). Ctrl-C stops the cluster; data stays in ${dataDir}.`);
  const code = await cp.waitForSignal(async () => { await sim.close(); clients.close(); });
  return code;
}
