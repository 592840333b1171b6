/**
 * A real node for the end-to-end tests: a `k8ts agent --runtime cri`
 * process on a private containerd (containerd.ts), its kubelet API on
 * 127.0.0.1 with a free port, so the API server reaches it on loopback and
 * never at a pod network address.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { cliPath, eventually, type Cluster } from './harness.js';
import type { PrivateContainerd } from './containerd.js';

export interface CRIAgent {
  proc: ChildProcess;
  /** Everything the agent logged since it started (JSON lines, debug level). */
  log(): string;
  /** SIGTERM, and wait for the exit; a no-op once it has exited. */
  stop(): Promise<void>;
}

export interface CRIAgentOptions {
  cluster: Cluster;
  ctrd: PrivateContainerd;
  nodeName: string;
  /** The kubelet's root dir is `<work>/kubelet` and its pod logs `<work>/pods` unless given. */
  work: string;
  rootDir?: string;
  podLogsDir?: string;
  extraArgs?: string[];
}

export function startCRIAgent(o: CRIAgentOptions): CRIAgent {
  let log = '';
  const proc = spawn(process.execPath, [
    cliPath, 'agent', '--kubeconfig', o.cluster.kubeconfig, '--runtime', 'cri', '--container-runtime-endpoint', o.ctrd.endpoint,
    '--node-name', o.nodeName, '--node-ip', '127.0.0.1', '--pod-cidr', o.ctrd.podSubnet,
    '--root-dir', o.rootDir ?? join(o.work, 'kubelet'), '--pod-logs-dir', o.podLogsDir ?? join(o.work, 'pods'),
    '--address', '127.0.0.1', '--kubelet-port', '0', ...(o.extraArgs ?? []),
  ], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'debug' } });
  proc.stdout!.resume();
  proc.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
  return {
    proc,
    log: () => log,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** Waits until the Node reports Ready=True. */
export async function nodeReady(cluster: Cluster, nodeName: string, timeoutMs = 30_000): Promise<void> {
  await eventually(async () => {
    const r = await cluster.kubectl(['get', 'node', nodeName, '-o', 'json'], { allowFail: true });
    return r.code === 0 && JSON.parse(r.stdout).status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
  }, timeoutMs, `node ${nodeName} Ready`);
}
