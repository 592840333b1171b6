/**
 * The kube-proxy tests' machine room, all in network namespaces the test
 * creates (shared/notes/containerd-cri.md, network hygiene):
 *
 *   client ns  10.78.1.2 ──veth── 10.78.1.1  node ns  br0 10.78.0.1 ──veth── backend ns b1..bN 10.78.0.11..
 *
 * The node namespace runs a real `k8ts server` (on its own loopback) and a
 * real `k8ts proxy` whose nftables table lives in that namespace only; the
 * client namespace's default route is the node, so the client reaches
 * Service addresses as a machine on the node's network does; each backend
 * runs proxy-backend.js on port 8080. Everything is removed by cleanup(),
 * also when a test failed.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';
import { cliPath } from './harness.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

export const nodeAddress = '10.78.1.1';
export const clientAddress = '10.78.1.2';
export const bridgeAddress = '10.78.0.1';
export const backendAddress = (i: number) => `10.78.0.${10 + i}`;
export const nodeName = 'node-1';

const inNs = (ns: string, argv: string[]) => ['nsenter', `--net=/run/netns/${ns}`, ...argv];

export interface Probe { get(host: string, port: number, count?: number): Promise<string[]>; close(): void }

function startProbe(ns: string): Promise<Probe> {
  const child = spawn(inNs(ns, [])[0]!, [...inNs(ns, []).slice(1), process.execPath, join(here, 'proxy-probe.js'), 'serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map<string, (r: string[]) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const { id, results } = JSON.parse(line);
    waiting.get(id)?.(results);
    waiting.delete(id);
  });
  let n = 0;
  return Promise.resolve({
    get: (host, port, count = 1) => new Promise((resolve) => {
      const id = String(++n);
      waiting.set(id, resolve);
      child.stdin!.write(`${id} ${host} ${port} ${count}\n`);
    }),
    close: () => { child.stdin!.end(); child.kill(); },
  });
}

/** Waits for a line on a child's stderr/stdout that satisfies `match`. */
function waitFor(child: ChildProcess, stream: 'stdout' | 'stderr', match: (line: string) => boolean, what: string, ms = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${what} not seen in ${ms} ms: ${buf.slice(-2000)}`)), ms);
    const onData = (d: Buffer) => {
      buf += d.toString();
      if (buf.split('\n').some(match)) { clearTimeout(timer); child[stream]!.off('data', onData); resolve(); }
    };
    child[stream]!.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${what}: process exited (${code}): ${buf.slice(-2000)}`)); });
  });
}

export interface ProxyRoom {
  node: string;
  client: string;
  dataDir: string;
  kubeconfig: string;
  /** Logs of the proxy process (structured lines). */
  proxyLog: string[];
  kubectl(args: string[], input?: string): Promise<string>;
  nft(args: string[]): Promise<string>;
  /** Runs a command in the node namespace. */
  onNode(argv: string[]): Promise<string>;
  fromClient: Probe;
  fromNode: Probe;
  startProxy(extra?: string[]): Promise<void>;
  stopProxy(): Promise<number | null>;
  cleanup(): Promise<void>;
}

export async function buildProxyRoom(backends: number): Promise<ProxyRoom> {
  const tag = randomBytes(3).toString('hex');
  const node = `k8ts-px-${tag}-n`;
  const client = `k8ts-px-${tag}-c`;
  const backendNs = Array.from({ length: backends }, (_, i) => `k8ts-px-${tag}-b${i + 1}`);
  const namespaces: string[] = [];
  const children: ChildProcess[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-proxy-e2e-'));
  const kubeconfig = join(dataDir, 'admin.conf');
  const ip = (...args: string[]) => run('ip', args);
  let proxy: ChildProcess | undefined;
  const proxyLog: string[] = [];
  const probes: Probe[] = [];

  const cleanup = async () => {
    for (const p of probes) p.close();
    for (const c of [...children, proxy]) if (c && c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const ns of namespaces) await ip('netns', 'del', ns).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    for (const ns of [node, client, ...backendNs]) {
      await ip('netns', 'add', ns);
      namespaces.push(ns);
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
    await run('nsenter', [`--net=/run/netns/${node}`, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    await ip('-n', node, 'link', 'add', 'br0', 'type', 'bridge');
    await ip('-n', node, 'addr', 'add', `${bridgeAddress}/24`, 'dev', 'br0');
    await ip('-n', node, 'link', 'set', 'br0', 'up');
    await ip('-n', node, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', client);
    await ip('-n', node, 'addr', 'add', `${nodeAddress}/24`, 'dev', 'eth0');
    await ip('-n', node, 'link', 'set', 'eth0', 'up');
    await ip('-n', client, 'addr', 'add', `${clientAddress}/24`, 'dev', 'eth0');
    await ip('-n', client, 'link', 'set', 'eth0', 'up');
    await ip('-n', client, 'route', 'add', 'default', 'via', nodeAddress);
    // A node has a default route (the kernel routes a locally sent packet before nat-output DNATs it);
    // here it leads to an unaddressed veth pair inside the namespace, where packets end, never back to the
    // client (that would send ICMP redirects, which use up the rate limit of the rejects' ICMP errors).
    await ip('-n', node, 'link', 'add', 'uplink', 'type', 'veth', 'peer', 'name', 'uplink-end');
    await ip('-n', node, 'link', 'set', 'uplink-end', 'up');
    await ip('-n', node, 'link', 'set', 'uplink', 'up');
    await ip('-n', node, 'route', 'add', 'default', 'dev', 'uplink');
    for (const [i, ns] of backendNs.entries()) {
      await ip('-n', node, 'link', 'add', `vb${i + 1}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
      await ip('-n', node, 'link', 'set', `vb${i + 1}`, 'master', 'br0', 'up');
      await ip('-n', ns, 'addr', 'add', `${backendAddress(i + 1)}/24`, 'dev', 'eth0');
      await ip('-n', ns, 'link', 'set', 'eth0', 'up');
      await ip('-n', ns, 'route', 'add', 'default', 'via', bridgeAddress);
      const b = spawn('nsenter', [`--net=/run/netns/${ns}`, process.execPath, join(here, 'proxy-backend.js'), `b${i + 1}`, '8080'], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(b);
      await waitFor(b, 'stdout', (l) => l === 'listening', `backend b${i + 1}`);
    }
    const server = spawn('nsenter', [`--net=/run/netns/${node}`, process.execPath, cliPath, 'server', '--data-dir', dataDir, '--port', '6443', '--controllers', 'all'],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'info' } });
    children.push(server);
    await waitFor(server, 'stderr', (l) => l.includes('"API server ready"'), 'k8ts server');
    server.stderr!.resume();
    probes.push(await startProbe(client), await startProbe(node));
  } catch (e) {
    await cleanup();
    throw e;
  }

  const room: ProxyRoom = {
    node, client, dataDir, kubeconfig, proxyLog,
    fromClient: probes[0]!, fromNode: probes[1]!,
    kubectl: async (args, input) => {
      const p = run('nsenter', [`--net=/run/netns/${node}`, 'kubectl', '--kubeconfig', kubeconfig, '--cache-dir', join(dataDir, 'kcache'), ...args]);
      if (input !== undefined) p.child.stdin!.end(input);
      return (await p).stdout;
    },
    nft: async (args) => (await run('nsenter', [`--net=/run/netns/${node}`, 'nft', ...args], { maxBuffer: 256 * 1024 * 1024 })).stdout,
    onNode: async (argv) => (await run('nsenter', [`--net=/run/netns/${node}`, ...argv])).stdout,
    startProxy: async (extra = []) => {
      proxy = spawn('nsenter', [`--net=/run/netns/${node}`, process.execPath, cliPath, 'proxy', '--kubeconfig', kubeconfig,
        '--hostname-override', nodeName, '--cluster-cidr', '10.244.0.0/16', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
      createInterface({ input: proxy.stderr! }).on('line', (l) => proxyLog.push(l));
      await waitFor(proxy, 'stderr', (l) => l.includes('"kube-proxy running"'), 'k8ts proxy');
    },
    stopProxy: () => new Promise((resolve) => {
      const p = proxy;
      if (!p || p.exitCode !== null) { resolve(p?.exitCode ?? null); return; }
      p.once('exit', (code) => resolve(code));
      p.kill('SIGTERM');
    }),
    cleanup,
  };
  return room;
}
