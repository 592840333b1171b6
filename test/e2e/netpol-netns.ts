/**
 * The NetworkPolicy tests' machine room, in network namespaces the test
 * creates (shared/notes/containerd-cri.md, network hygiene):
 *
 *   node-1 ns: k8ts server, k8ts proxy (with the NetworkPolicy agent), br0 10.79.1.1/24
 *     └─veth─ pod ns x-a 10.79.1.11, x-b .12, x-c .13, y-a .14 ... z-c .19 (netpol-pod.js)
 *
 * With `twoNodes`, the c pods live on node-2 (its own proxy and bridge
 * 10.79.2.1/24, pods 10.79.2.x), joined to node-1 by a link 10.79.100.0/24
 * with a route to each other's pod subnet (host-gw), so every namespace
 * spans both nodes and every rule is checked across them.
 *
 * Upstream's netpol e2e grid: namespaces x, y, z × pods a, b, c. Each pod is
 * a network namespace on the node's bridge (frames between pods are bridged,
 * as on a CNI bridge) with a Pod object bound to the node whose status.podIP
 * is its address, so the agent sees exactly what a kubelet would report.
 * Everything is removed by cleanup(), also when a test failed.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { cliPath } from './harness.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

export const namespaces = ['x', 'y', 'z'] as const;
export const podNames = ['a', 'b', 'c'] as const;
export const grid = namespaces.flatMap((ns) => podNames.map((p) => `${ns}/${p}`));
/** The node of grid pod `id`: with two nodes, the c pods are on node-2. */
export const nodeOf = (id: string, twoNodes: boolean) => (twoNodes && id.endsWith('/c') ? 2 : 1);
export const podAddress = (id: string, twoNodes = false) => `10.79.${nodeOf(id, twoNodes)}.${11 + grid.indexOf(id)}`;
const bridgeAddress = (n: number) => `10.79.${n}.1`;
const linkAddress = (n: number) => `10.79.100.${n}`;

export interface PodAgent {
  send(cmd: string): Promise<boolean>;
  /** The text a command answered with (`get HOST PORT`: the body's last line), undefined when it failed. */
  ask(cmd: string): Promise<string | undefined>;
  close(): void;
}

/** netpol-pod.js in the network namespace at `netnsPath` (a /run/netns file, or /proc/PID/ns/net of a container). */
export function startPodAgent(netnsPath: string, udpOnly = false): Promise<PodAgent> {
  const child = spawn('nsenter', [`--net=${netnsPath}`, process.execPath, join(here, 'netpol-pod.js'), 'serve', ...(udpOnly ? ['--udp-only'] : [])], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map<string, (r: { ok: boolean; text?: string }) => void>();
  let n = 0;
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`pod agent in ${netnsPath} exited (${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const { id, ok, text } = JSON.parse(line);
      const ask = (cmd: string) => new Promise<{ ok: boolean; text?: string }>((r) => { const i = String(++n); waiting.set(i, r); child.stdin!.write(`${i} ${cmd}\n`); });
      if (id === 'ready') {
        resolve({
          send: async (cmd) => (await ask(cmd)).ok,
          ask: async (cmd) => (await ask(cmd)).text,
          close: () => { child.stdin!.end(); child.kill(); },
        });
        return;
      }
      waiting.get(id)?.({ ok, text });
      waiting.delete(id);
    });
  });
}

function waitFor(child: ChildProcess, match: (line: string) => boolean, what: string, ms = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${what} not seen in ${ms} ms: ${buf.slice(-2000)}`)), ms);
    const onData = (d: Buffer) => {
      buf += d.toString();
      if (buf.split('\n').some(match)) { clearTimeout(timer); child.stderr!.off('data', onData); resolve(); }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${what}: process exited (${code}): ${buf.slice(-2000)}`)); });
  });
}

export interface NetpolRoom {
  pods: Map<string, PodAgent>;
  proxyLog: string[];
  kubectl(args: string[], input?: string): Promise<string>;
  /** nft in node `n` (1 or 2). */
  nft(args: string[], n?: number): Promise<string>;
  cleanup(): Promise<void>;
}

/** The Pod object of grid pod `id` ("x/a"), with upstream's e2e container port names. */
export function gridPod(id: string, twoNodes = false): Pod {
  const [ns, name] = id.split('/') as [string, string];
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { namespace: ns, name, labels: { pod: name } },
    spec: {
      nodeName: `node-${nodeOf(id, twoNodes)}`, automountServiceAccountToken: false,
      containers: [{
        name: 'agnhost', image: 'k8ts.local/busybox:1',
        ports: [
          { name: 'serve-80-tcp', containerPort: 80, protocol: 'TCP' }, { name: 'serve-81-tcp', containerPort: 81, protocol: 'TCP' },
          { name: 'serve-80-udp', containerPort: 80, protocol: 'UDP' }, { name: 'serve-81-udp', containerPort: 81, protocol: 'UDP' },
        ],
      }],
    },
  };
}

export async function buildNetpolRoom(twoNodes = false): Promise<NetpolRoom> {
  const tag = randomBytes(3).toString('hex');
  const node = `k8ts-np-${tag}-n`;
  const nodeNs = twoNodes ? [node, `k8ts-np-${tag}-m`] : [node];
  const podNs = new Map(grid.map((id) => [id, `k8ts-np-${tag}-${id.replace('/', '')}`]));
  const created: string[] = [];
  const children: ChildProcess[] = [];
  const pods = new Map<string, PodAgent>();
  const proxyLog: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-netpol-e2e-'));
  const kubeconfig = join(dataDir, 'admin.conf');
  const ip = (...args: string[]) => run('ip', args);
  const cleanup = async () => {
    for (const p of pods.values()) p.close();
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const ns of created) await ip('netns', 'del', ns).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const kubectl = async (args: string[], input?: string) => {
    const p = run('nsenter', [`--net=/run/netns/${node}`, 'kubectl', '--kubeconfig', kubeconfig, '--cache-dir', join(dataDir, 'kcache'), ...args]);
    if (input !== undefined) p.child.stdin!.end(input);
    return (await p).stdout;
  };
  try {
    for (const ns of [...nodeNs, ...podNs.values()]) {
      await ip('netns', 'add', ns);
      created.push(ns);
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
    for (const [i, ns] of nodeNs.entries()) {
      await run('nsenter', [`--net=/run/netns/${ns}`, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
      await ip('-n', ns, 'link', 'add', 'br0', 'type', 'bridge');
      await ip('-n', ns, 'addr', 'add', `${bridgeAddress(i + 1)}/24`, 'dev', 'br0');
      await ip('-n', ns, 'link', 'set', 'br0', 'up');
    }
    if (twoNodes) {
      await ip('-n', nodeNs[0]!, 'link', 'add', 'eth1', 'type', 'veth', 'peer', 'name', 'eth1', 'netns', nodeNs[1]!);
      for (const [i, ns] of nodeNs.entries()) {
        await ip('-n', ns, 'addr', 'add', `${linkAddress(i + 1)}/24`, 'dev', 'eth1');
        await ip('-n', ns, 'link', 'set', 'eth1', 'up');
        await ip('-n', ns, 'route', 'add', `10.79.${2 - i}.0/24`, 'via', linkAddress(2 - i));
      }
    }
    for (const [i, id] of grid.entries()) {
      const ns = podNs.get(id)!;
      const host = nodeNs[nodeOf(id, twoNodes) - 1]!;
      await ip('-n', host, 'link', 'add', `veth${i}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
      await ip('-n', host, 'link', 'set', `veth${i}`, 'master', 'br0', 'up');
      await ip('-n', ns, 'addr', 'add', `${podAddress(id, twoNodes)}/24`, 'dev', 'eth0');
      await ip('-n', ns, 'link', 'set', 'eth0', 'up');
      await ip('-n', ns, 'route', 'add', 'default', 'via', bridgeAddress(nodeOf(id, twoNodes)));
    }
    const server = spawn('nsenter', [`--net=/run/netns/${node}`, process.execPath, cliPath, 'server', '--data-dir', dataDir, '--port', '6443', '--controllers', 'none',
      ...(twoNodes ? ['--bind', '0.0.0.0', '--advertise-address', linkAddress(1)] : [])],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(server);
    await waitFor(server, (l) => l.includes('"API server ready"'), 'k8ts server');
    server.stderr!.resume();
    await Promise.all(grid.map(async (id) => { pods.set(id, await startPodAgent(`/run/netns/${podNs.get(id)!}`)); }));
    for (const ns of namespaces) await kubectl(['create', 'namespace', ns]);
    await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: grid.map((id) => gridPod(id, twoNodes)) }));
    for (const id of grid) {
      const [ns, name] = id.split('/') as [string, string];
      await kubectl(['patch', 'pod', name, '-n', ns, '--subresource=status', '--type=merge', '-p',
        JSON.stringify({ status: { phase: 'Running', podIP: podAddress(id, twoNodes), podIPs: [{ ip: podAddress(id, twoNodes) }] } })]);
    }
    for (const [i, ns] of nodeNs.entries()) {
      const proxy = spawn('nsenter', [`--net=/run/netns/${ns}`, process.execPath, cliPath, 'proxy', '--kubeconfig', kubeconfig,
        '--hostname-override', `node-${i + 1}`, '--cluster-cidr', '10.79.0.0/16', '--min-sync-period', '100ms'], { stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(proxy);
      createInterface({ input: proxy.stderr! }).on('line', (l) => proxyLog.push(`node-${i + 1}: ${l}`));
      await waitFor(proxy, (l) => l.includes('"network policy agent running"'), `k8ts proxy on node-${i + 1}`);
    }
  } catch (e) {
    await cleanup();
    throw e;
  }
  return {
    pods, proxyLog, kubectl, cleanup,
    nft: async (args, n = 1) => (await run('nsenter', [`--net=/run/netns/${nodeNs[n - 1]}`, 'nft', ...args], { maxBuffer: 64 * 1024 * 1024 })).stdout,
  };
}
