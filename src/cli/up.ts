/**
 * `k8ts up`: a local cluster in ./.k8ts for a first look with kubectl — the
 * control plane (API server, controllers, scheduler) plus simulated nodes:
 * one control-plane node, tainted as kubeadm taints it, and two workers.
 * With --runtime cri or process, one real node instead (up-node.ts).
 */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { createLogger, type Logger } from '../util/log.js';
import { afterPoll } from '../util/after-poll.js';
import type { ControlPlane } from './control-plane.js';
import type { Clientset } from '../client/index.js';
import { mustParseDuration } from '../kubelet/duration.js';
import { componentUserAgent } from '../util/user-agent.js';

// Modules load when they are needed, not at import: `k8ts up --help` and a bad flag answer
// without the control plane, and what runs after the API server is ready (the add-ons, the
// client, the simulated nodes, their kubelet API; yaml through the kube-proxy add-on) loads
// after /readyz answers 200, not before (bench/startup.ts).

/**
 * How long a pod on up's simulated nodes stays ContainerCreating after it reaches its node, and how long a
 * deleted pod takes to stop and go: about what this project's containerd node takes (simulated runtime
 * README). Instant starts and 200 ms stops made a StatefulSet's same-name replacement appear inside kubectl
 * 1.32's delete --wait window, which then hangs (kubernetes/kubectl#1803; docs/workloads.md).
 */
const upStartDelay = '500ms';
const upDeleteDelay = '1s';

/** The kube-dns Service's address: the tenth of the API server's service CIDR, 10.96.0.0/12 (up has no --service-cidr). */
const upClusterDNS = '10.96.0.10';

/** kubeadm's addon phase, so `kubectl get -n kube-system deploy,svc` shows what a kubeadm cluster has. */
async function applyAddons(cp: ControlPlane, Clients: typeof Clientset, runtime: string, podCIDR: string): Promise<void> {
  const clients = new Clients(cp.clientConfig, { userAgent: componentUserAgent('kubeadm') });
  try {
    const [{ applyCoreDNSAddon }, { applyKubeProxyAddon }] = await Promise.all([import('./kubeadm/addon-coredns.js'), import('./kubeadm/addon-kube-proxy.js')]);
    await applyCoreDNSAddon(clients, { dnsIP: upClusterDNS, apiServerHost: '127.0.0.1', apiServerPort: cp.port });
    // kube-proxy on simulated nodes (simulated, as every pod there) and on a cri node (its nftables serve the
    // containers' Services); not with --runtime process, whose pods share the host's network and rules.
    if (runtime !== 'process') await applyKubeProxyAddon(clients, { apiServerHost: '127.0.0.1', apiServerPort: cp.port, clusterCIDR: podCIDR });
  } catch (err) {
    await cp.close();
    throw err;
  } finally {
    clients.close();
  }
}

export const upHelp = `Start a local k8ts cluster: simulated nodes, or one real node.

Usage:
  k8ts up [--data-dir .k8ts] [--port 6443] [--workers 2] [--control-plane-name control-plane] [--log-format text|json]
          [--control-loops-thread] [--start-delay 500ms] [--delete-delay 1s]
          [--allowed-unsafe-sysctls 'kernel.msg*,net.core.somaxconn']
  sudo k8ts up --runtime cri [--container-runtime-endpoint unix:///run/containerd/containerd.sock]
          [--node-name NAME] [--node-ip IP] [--pod-cidr 10.244.0.0/24] [--kubelet-port 10250]
  k8ts up --runtime process [--node-name NAME] ...

--runtime cri runs one real node (a \`k8ts agent\` child process) whose pods
are containers: on the runtime at --container-runtime-endpoint when given, else
on a private containerd that k8ts starts under DATA_DIR/containerd (its own
config, socket, images and CNI bridge k8ts0 with host-local addresses from
--pod-cidr; nothing of the machine's containerd is used or changed). It needs
root, containerd, runc and the CNI plugins in /usr/lib/cni
(sudo bash scripts/ci-setup-containerd.sh installs them). The images
k8ts.local/pause:1 and k8ts.local/busybox:1 (build/images) are imported; more
with \`k8ts images import FILE\`. --runtime process runs each container's
command as a host process (no image, no isolation).

Starts the API server on 127.0.0.1 with the controllers and the scheduler (on
the server's thread; --control-loops-thread gives them a worker thread, as
\`k8ts server\` does: a second core for them, ~10-20 MB more memory), and
registers simulated nodes: one control-plane node (label
node-role.kubernetes.io/control-plane, taint node-role.kubernetes.io/control-plane:NoSchedule)
and --workers workers named worker1, worker2, ... Their pods are simulated: they
go Running and Ready, but no container runs. A pod is ContainerCreating for
--start-delay (default ${upStartDelay}) after it reaches its node, and a deleted
one stops within --delete-delay (default ${upDeleteDelay}; at most its grace
period), about as long as a real node takes. Each node serves the kubelet API on
127.0.0.1 (its InternalIP): \`kubectl logs\` shows a pod's simulated lifecycle,
or what its command prints when it is a simple one (echo, env, date, cat of a
ConfigMap file, a while loop with sleep, pipes into grep, head, tail, wc, sort,
uniq, cut or tr, if/test, touch, rm, mkdir, cp, mv, curl and wget to the pod
itself, nslookup); \`kubectl exec\` and exec probes run such commands in a
simulated shell against the container's files (others: "sh: NAME: not found";
an exec probe it cannot run keeps the simulated outcome); port-forward and the API
server's pods/services proxy reach simulated nginx, kubernetes-bootcamp,
hello-app, echoserver, httpd, agnhost liveness, goproxy, redis, guestbook
frontend, mysql and WordPress servers, and so do NodePort and LoadBalancer
ports on 127.0.0.1 (the nodes' address) and httpGet/tcpSocket probes (a port
none of them listens on is refused); attach says that no process runs.
Every node admits pods as the kubelet does: a pod setting a sysctl outside
1.32's safe ones and --allowed-unsafe-sysctls (namespaced sysctls or patterns
ending in *) fails with SysctlForbidden.
Ctrl-C stops everything; the data stays in the data directory.

On a terminal the JSON log lines go to DATA_DIR/k8ts.log (errors are also
shown); --log-format json keeps them on stderr, as when stderr is not a
terminal.`;

export async function runUp(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args, strict: true, options: {
      'data-dir': { type: 'string', default: '.k8ts' }, port: { type: 'string', default: '6443' },
      workers: { type: 'string', default: '2' }, 'control-plane-name': { type: 'string', default: 'control-plane' },
      runtime: { type: 'string', default: 'simulated' }, 'container-runtime-endpoint': { type: 'string' },
      'node-name': { type: 'string' }, 'node-ip': { type: 'string' }, 'pod-cidr': { type: 'string', default: '10.244.0.0/24' },
      'kubelet-port': { type: 'string', default: '10250' }, 'log-format': { type: 'string' },
      'control-loops-thread': { type: 'boolean', default: false }, 'start-delay': { type: 'string', default: upStartDelay },
      'delete-delay': { type: 'string', default: upDeleteDelay }, 'allowed-unsafe-sysctls': { type: 'string' },
    },
  });
  let startDelayMs: number, deleteDelayMs: number;
  try {
    startDelayMs = mustParseDuration('start-delay', values['start-delay']!);
    deleteDelayMs = mustParseDuration('delete-delay', values['delete-delay']!);
  } catch (err) { console.error(`Error: ${(err as Error).message}`); return 1; }
  // Checked before anything starts, in the kubelet's words (its nodes are kubelets); parsed only when given.
  let sysctls: import('../kubelet/sysctl.js').SysctlAllowlist | undefined;
  if (values['allowed-unsafe-sysctls']) {
    try {
      sysctls = (await import('../kubelet/flags.js')).parseUnsafeSysctlsFlag(values['allowed-unsafe-sysctls']);
    } catch (err) { console.error(`Error: failed to run Kubelet: failed to create kubelet: ${(err as Error).message}`); return 1; }
  }
  if (!['simulated', 'cri', 'process'].includes(values.runtime!)) { console.error(`Error: runtime "${values.runtime}" is not supported (available: simulated, cri, process)`); return 1; }
  const dataDir = resolve(values['data-dir']!);
  const logNote = routeLogs(values['log-format'], dataDir);
  if (logNote === undefined) { console.error(`Error: invalid argument "${values['log-format']}" for "--log-format" flag: must be json or text`); return 1; }
  const logger = createLogger('k8ts');
  // The real node's code (CRI over gRPC, containerd) loads only for --runtime cri|process.
  const realNode = values.runtime === 'simulated' ? undefined : await import('./up-node.js');
  if (realNode) await realNode.realNodePreflight({ runtime: values.runtime as 'cri' | 'process', endpoint: values['container-runtime-endpoint'] });
  const { startControlPlane } = await import('./control-plane.js');
  const cp = await startControlPlane({
    dataDir, port: Number(values.port), bind: '127.0.0.1', logger, dashboard: true, controlLoopsThread: values['control-loops-thread'],
  });
  // A turn of the event loop (its I/O phase) before the client, add-ons and nodes load: readiness checks already
  // waiting are answered first. From the CommonJS build the launcher runs, their imports are synchronous requires.
  await new Promise<void>((resolve) => afterPoll(resolve));
  let Clientset: typeof import('../client/index.js').Clientset;
  try {
    ({ Clientset } = await import('../client/index.js'));
  } catch (err) {
    await cp.close();
    throw err;
  }
  await applyAddons(cp, Clientset, values.runtime!, values['pod-cidr']!);
  if (realNode) return upRealNode(realNode.startRealNode, cp, { ...values, dataDir, logNote, runtime: values.runtime as 'cri' | 'process' }, logger);
  const [{ NodeSimulator }, { reviewerFor }] = await Promise.all([import('../kubelet/simulator.js'), import('../kubelet/server/index.js')]);
  const clients = new Clientset(cp.clientConfig, { userAgent: componentUserAgent('kubelet') });
  // Each node serves the kubelet API on 127.0.0.1 (its InternalIP), so kubectl logs shows its pods' simulated lifecycle.
  // Their reviews (TokenReview, SubjectAccessReview) go through a client of their own, so a token spray cannot delay heartbeats.
  const reviewClients = new Clientset(cp.clientConfig, { userAgent: componentUserAgent('kubelet', 'auth') });
  const kubelet = {
    address: '127.0.0.1', clientCAPem: cp.clientConfig.caPem, podLogsDir: resolve(dataDir, 'pod-logs'), reviewer: reviewerFor(reviewClients),
    certDir: resolve(dataDir, 'kubelet-pki'), clusterDNS: [upClusterDNS], apiServer: cp.clientConfig.server,
  };
  const sim = new NodeSimulator(clients, { count: 0, logger: logger.with('sim'), kubelet, startDelayMs, deleteDelayMs, sysctls });
  const workers = Number(values.workers);
  // Listening for SIGTERM/SIGINT before the nodes register: a signal while they do stops the cluster cleanly
  // instead of killing the process (Node's default for a signal nobody handles).
  let signalled = false;
  let servicePorts: import('../kubelet/runtime/simulated/service-ports.js').SimulatedServicePorts | undefined;
  const stopped = cp.waitForSignal(async () => { signalled = true; await servicePorts?.close(); await sim.close(); clients.close(); reviewClients.close(); });
  try {
    await sim.start();
    await sim.addNode(values['control-plane-name']!, { controlPlane: true });
    for (let i = 1; i <= workers; i++) await sim.addNode(`worker${i}`);
    // NodePorts and LoadBalancer ports on the nodes' 127.0.0.1, as kube-proxy would answer them (curl 127.0.0.1:NODE_PORT).
    const { SimulatedServicePorts } = await import('../kubelet/runtime/simulated/service-ports.js');
    // A signal while that module loaded has already run the shutdown, which found no ports to close: start none.
    if (signalled) return stopped;
    servicePorts = new SimulatedServicePorts({
      clients, address: kubelet.address, logger: logger.with('service-ports'),
      dial: (node, uid, port) => sim.node(node)?.kubeletHost().runtime.dialPort?.(uid, port),
    });
    servicePorts.start();
  } catch (err) {
    if (signalled) return stopped;
    // A cluster whose nodes cannot register is not up: stop all of it (the caller reports why).
    await servicePorts?.close();
    await sim.close().catch(() => undefined);
    clients.close();
    reviewClients.close();
    await cp.close();
    throw err;
  }
  console.log(`k8ts is up at ${cp.url}

  export KUBECONFIG=${cp.kubeconfigPath}
  kubectl get nodes

Dashboard: ${cp.url}/dashboard/ (log in with a bearer token; for the cluster-admin view:
  kubectl create serviceaccount dashboard-admin -n kube-system
  kubectl create clusterrolebinding dashboard-admin --clusterrole=cluster-admin --serviceaccount=kube-system:dashboard-admin
  kubectl create token dashboard-admin -n kube-system)

The ${workers + 1} nodes are SIMULATED: pods scheduled to them are reported Running and
Ready, but no container runs (kubectl logs shows their simulated lifecycle, or what a simple command such as echo prints;
kubectl exec runs a simulated shell; port-forward reaches simulated nginx and the tutorials' other images). Ctrl-C stops the cluster; data stays in ${dataDir}.${logNote}`);
  return stopped;
}

interface RealNodeFlags {
  runtime: 'cri' | 'process';
  dataDir: string;
  'container-runtime-endpoint'?: string;
  'node-name'?: string;
  'node-ip'?: string;
  'pod-cidr'?: string;
  'kubelet-port'?: string;
  'allowed-unsafe-sysctls'?: string;
  logNote: string;
}

async function upRealNode(startRealNode: typeof import('./up-node.js').startRealNode, cp: ControlPlane, f: RealNodeFlags, logger: Logger): Promise<number> {
  let node;
  try {
    node = await startRealNode({
      runtime: f.runtime, dataDir: f.dataDir, kubeconfigPath: cp.kubeconfigPath, nodeName: f['node-name'], nodeIP: f['node-ip'],
      podCIDR: f['pod-cidr']!, endpoint: f['container-runtime-endpoint'], kubeletPort: Number(f['kubelet-port']), logger: logger.with('node'),
      clusterDNS: upClusterDNS, allowedUnsafeSysctls: f['allowed-unsafe-sysctls'],
    });
  } catch (err) {
    await cp.close();
    throw err;
  }
  const runtime = f.runtime === 'process' ? 'the process runtime (each container\'s command runs as a host process)'
    : node.privateContainerd ? `a private containerd (${node.endpoint}, data in ${f.dataDir}/containerd)` : `the container runtime at ${node.endpoint}`;
  console.log(`k8ts is up at ${cp.url}

  export KUBECONFIG=${cp.kubeconfigPath}
  kubectl get nodes
  kubectl create deployment web --image=k8ts.local/busybox:1 -- busybox httpd -f -p 8000

Dashboard: ${cp.url}/dashboard/ (log in with a bearer token, e.g. from \`kubectl create token\`)

Node ${node.nodeName} (${node.nodeIP}) runs its pods on ${runtime}.
Ctrl-C stops the cluster and its pods; data stays in ${f.dataDir}.${f.logNote}`);
  return cp.waitForSignal(() => node.close());
}

/**
 * --log-format: `json` keeps every JSON log line on stderr (for machines and
 * pipes, and the default when stderr is not a terminal); `text` (the default
 * on a terminal) sends them to DATA/k8ts.log and leaves the terminal to the
 * few lines a person needs, errors included. Threads started later inherit
 * the choice through the environment. Returns the line to add to the
 * summary, or undefined for a value that is neither.
 */
function routeLogs(format: string | undefined, dataDir: string): string | undefined {
  const chosen = format ?? (process.stderr.isTTY ? 'text' : 'json');
  if (chosen === 'json') return '';
  if (chosen !== 'text') return undefined;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  process.env.K8TS_LOG_FILE = join(dataDir, 'k8ts.log');
  return `\nLogs (JSON lines) go to ${process.env.K8TS_LOG_FILE}; --log-format json keeps them on stderr.`;
}
