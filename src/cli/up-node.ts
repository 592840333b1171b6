/**
 * The real node of `k8ts up --runtime cri|process`: a `k8ts agent` child
 * process against the control plane that `up` runs, restarted when it exits
 * (1 s back-off, as `k8ts supervise`), and for cri the container runtime:
 * the one at --container-runtime-endpoint when given, else a private
 * containerd under DATA_DIR/containerd (src/cli/containerd/). close() stops
 * the agent (SIGTERM), the pods it ran as host processes (all of a process
 * node's; a cri node's add-ons), and then the
 * private containerd with its pods.
 *
 * Children run in their own process group, so a terminal's Ctrl-C reaches
 * only `up`, which stops them in that order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { networkInterfaces, hostname } from 'node:os';
import { join } from 'node:path';
import { cliEntry } from '../util/package-root.js';
import { CRIClient } from '../kubelet/runtime/cri/client.js';
import { goGRPCError } from '../kubelet/runtime/cri/index.js';
import type { Logger } from '../util/log.js';
import { cniBridge } from './containerd/config.js';
import { importLocalImages, localImages } from './containerd/images.js';
import { startContainerd, type RunningContainerd } from './containerd/launch.js';
import { containerdPreflight } from './containerd/preflight.js';
import { agentNodeFlags } from './agent-node-flags.js';
import { stopHostProcessPods } from './kubeadm/host-processes.js';

export interface RealNodeOptions {
  runtime: 'cri' | 'process';
  dataDir: string;
  kubeconfigPath: string;
  nodeName?: string;
  nodeIP?: string;
  podCIDR: string;
  /** cri: use this runtime instead of a private containerd. */
  endpoint?: string;
  kubeletPort: number;
  logger: Logger;
  /** --cluster-dns for the node agent: the kube-dns Service address (KubeletConfiguration clusterDNS). */
  clusterDNS?: string;
  /** The agent's --allowed-unsafe-sysctls, as given to up. */
  allowedUnsafeSysctls?: string;
}

export interface RealNode {
  nodeName: string;
  nodeIP: string;
  /** cri: the runtime's endpoint; private when k8ts started it. */
  endpoint?: string;
  privateContainerd: boolean;
  close(): Promise<void>;
}

const cliMain = cliEntry();

export async function startRealNode(o: RealNodeOptions): Promise<RealNode> {
  const nodeName = (o.nodeName ?? hostname()).toLowerCase();
  const nodeIP = o.nodeIP ?? nodeIPv4();
  let ctrd: SupervisedContainerd | undefined;
  let endpoint: string | undefined;
  if (o.runtime === 'cri') {
    if (o.endpoint) {
      await checkEndpoint(o.endpoint);
      endpoint = o.endpoint;
      await importIntoExisting(endpoint, o.logger);
    } else {
      const images = localImages();
      await containerdPreflight(images); // again: up checked before the control plane started, but the machine may have changed
      ctrd = await superviseContainerd(() => startContainerd({ dir: join(o.dataDir, 'containerd'), podSubnet: o.podCIDR, images }), o.logger);
      endpoint = ctrd.endpoint;
    }
  }
  const args = [
    ...agentNodeFlags(o.runtime), cliMain, 'agent', '--kubeconfig', o.kubeconfigPath, '--runtime', o.runtime, '--node-name', nodeName, '--node-ip', nodeIP,
    '--pod-cidr', o.podCIDR, '--root-dir', join(o.dataDir, 'kubelet'), '--pod-logs-dir', join(o.dataDir, 'pods'),
    '--kubelet-port', String(o.kubeletPort), ...(endpoint ? ['--container-runtime-endpoint', endpoint] : []),
    ...(o.clusterDNS ? ['--cluster-dns', o.clusterDNS] : []),
    ...(o.allowedUnsafeSysctls ? ['--allowed-unsafe-sysctls', o.allowedUnsafeSysctls] : []),
  ];
  const agent = superviseAgent(args, o.logger);
  return {
    nodeName, nodeIP, endpoint, privateContainerd: !!ctrd,
    close: async () => {
      await agent.stop();
      // Host-process pods (a cri node's add-ons, kube-proxy and coredns; every pod of a process node) are left running by
      // the stopped agent (as a kubelet leaves its containers, to adopt them again): they stop with the node, as the
      // private containerd's containers do, since `up` promises that Ctrl-C stops the cluster and its pods.
      await stopHostProcessPods(join(o.dataDir, 'kubelet'));
      await ctrd?.stop();
    },
  };
}

/** What can be checked before the control plane starts: a private containerd's needs (root, binaries, CNI plugins, image archives). */
export async function realNodePreflight(o: Pick<RealNodeOptions, 'runtime' | 'endpoint'>): Promise<void> {
  if (o.runtime === 'cri' && !o.endpoint) await containerdPreflight(localImages());
}

/** Upstream kubelet's words when the runtime does not answer the CRI v1 Version call. */
async function checkEndpoint(endpoint: string): Promise<void> {
  const client = new CRIClient(endpoint);
  try {
    await client.version();
  } catch (e) {
    throw new Error(`validate service connection: validate CRI v1 runtime API for endpoint "${endpoint}": ${goGRPCError(e)}`);
  } finally {
    client.close();
  }
}

/** A runtime k8ts did not start gets the local images too when it can be reached with ctr (a unix socket); a failure only warns. */
async function importIntoExisting(endpoint: string, logger: Logger): Promise<void> {
  if (!endpoint.startsWith('unix://')) return;
  const client = new CRIClient(endpoint);
  try {
    await importLocalImages(endpoint.slice('unix://'.length), client, localImages());
  } catch (e) {
    logger.warn('could not import the local images (k8ts images import FILE does it by hand)', { endpoint, err: (e as Error).message });
  } finally {
    client.close();
  }
}

interface SupervisedContainerd { endpoint: string; stop(): Promise<void> }

/**
 * The private containerd, started again 1 s after an exit nobody asked for
 * (same socket, so the agent reconnects; its pods' shims outlive containerd
 * and are found again). The first start's failure is the caller's.
 */
async function superviseContainerd(start: () => Promise<RunningContainerd>, logger: Logger): Promise<SupervisedContainerd> {
  let current = await start();
  let stopping = false;
  let restart: NodeJS.Timeout | undefined;
  const watch = (c: RunningContainerd) => {
    logger.info('private containerd running', { pid: c.proc.pid, endpoint: c.endpoint, log: c.layout.log });
    c.proc.once('exit', (code, signal) => {
      if (stopping) return;
      logger.error('private containerd exited; restarting it in 1s', { code, signal, log: c.layout.log });
      restart = setTimeout(() => {
        if (stopping) return;
        start().then((next) => {
          current = next;
          if (stopping) void next.stop(); else watch(next);
        }, (e) => logger.error('private containerd did not start again', { err: (e as Error).message }));
      }, 1000);
    });
  };
  watch(current);
  return {
    endpoint: current.endpoint,
    stop: async () => {
      stopping = true;
      clearTimeout(restart);
      await current.stop();
    },
  };
}

/** The agent child, restarted 1 s after an exit nobody asked for. */
function superviseAgent(args: string[], logger: Logger): { stop(): Promise<void> } {
  let child: ChildProcess | undefined;
  let stopping = false;
  let restart: NodeJS.Timeout | undefined;
  const start = () => {
    const c = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
    child = c;
    c.once('exit', (code, signal) => {
      child = undefined;
      if (stopping) return;
      logger.error('node agent exited; restarting it in 1s', { code, signal });
      restart = setTimeout(start, 1000);
    });
  };
  start();
  return {
    stop: async () => {
      stopping = true;
      clearTimeout(restart);
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    },
  };
}

/** The node's InternalIP: the first non-loopback IPv4 address, not the pods' bridge (upstream picks the default route's address), else 127.0.0.1. */
function nodeIPv4(): string {
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    if (name === cniBridge || name.startsWith('veth')) continue;
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}
