/** Flag parsing and checks shared by init and join. */
import { createSocket } from 'node:dgram';
import type { AgentRuntime } from './kubelet-start.js';
import { detectCRISocket } from './cri-socket.js';

export function parseRuntime(value: string): AgentRuntime {
  if (value === 'simulated' || value === 'cri' || value === 'process') return value;
  throw new Error(`runtime "${value}" is not supported (available: cri, process, simulated)`);
}

/**
 * The node's runtime from init's and join's flags. Real by default, as
 * kubeadm: containerd (the CRI) at --cri-socket, else at the socket
 * kubeadm's detection finds under --prefix; `--runtime process` (host
 * processes) and `--runtime simulated` (no containers) are opt-in.
 * Throws with the user's message when the flags disagree or detection fails.
 */
export function nodeRuntimeOf(flags: { runtime?: string; 'cri-socket'?: string }, prefix: string): { runtime: AgentRuntime; criSocket?: string } {
  const runtime = parseRuntime(flags.runtime ?? 'cri');
  if (runtime !== 'cri') {
    if (flags['cri-socket']) throw new Error(`--cri-socket names a CRI runtime and cannot be used with --runtime ${runtime}`);
    return { runtime };
  }
  if (flags['cri-socket']) return { runtime, criSocket: flags['cri-socket'] };
  const found = detectCRISocket(prefix);
  if ('error' in found) throw new Error(found.error);
  return { runtime, criSocket: found.endpoint };
}

/**
 * The first address of the service CIDR, the `kubernetes` Service's ClusterIP (kubeadm's GetAPIServerVirtualIP);
 * with n = 10 the tenth, the kube-dns Service's (kubeadm's GetDNSIP).
 */
export function serviceIPOf(cidr: string, n = 1): string {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const bits = m ? Number(m[5]) : -1;
  if (!m || octets.some((o) => o > 255) || bits < 0 || bits > 30) throw new Error(`couldn't parse service CIDR "${cidr}"`);
  const base = (octets.reduce((a, o) => a * 256 + o, 0) >>> 0) & (bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0);
  const ip = (base + n) >>> 0;
  return [24, 16, 8, 0].map((s) => (ip >>> s) & 255).join('.');
}

/**
 * The address this host uses to reach the API server at `endpoint`
 * (HOST:PORT): the node's IP when none is given, as the kubelet picks the
 * address of the interface that routes to the cluster. A connected UDP
 * socket asks the kernel's routing table and sends nothing. No route:
 * 127.0.0.1 (discovery then fails with its own message).
 */
export function sourceAddressTo(endpoint: string): Promise<string> {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(endpoint);
  if (!m) return Promise.resolve('127.0.0.1');
  const host = m[1]!;
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  return new Promise((resolve) => {
    socket.once('error', () => { socket.close(); resolve('127.0.0.1'); });
    socket.connect(Number(m[2]), host, () => {
      const address = socket.address().address;
      socket.close();
      resolve(address);
    });
  });
}
