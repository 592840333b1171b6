/**
 * The addresses NodePorts answer on (--nodeport-addresses, as upstream's
 * nftables mode reads it): `primary` (its default) means the node's own
 * InternalIPs from its Node object; a list of CIDRs means every local
 * interface address inside one of them.
 */
import { networkInterfaces } from 'node:os';
import type { Node } from 'kubernetes-types/core/v1.js';

const toInt = (ip: string) => ip.split('.').reduce((n, o) => (n * 256) + Number(o), 0);

export function cidrContains(cidr: string, ip: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText ?? 32);
  if (bits === 0) return true;
  const size = 2 ** (32 - bits);
  return Math.floor(toInt(ip) / size) === Math.floor(toInt(base) / size);
}

export const isIPv4CIDR = (s: string) => /^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(s);

/** Local IPv4 addresses in any of `cidrs`. */
export function localAddressesIn(cidrs: string[]): string[] {
  const out: string[] = [];
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && cidrs.some((c) => cidrContains(c, a.address))) out.push(a.address);
  }
  return [...new Set(out)].sort();
}

/** The node's primary IPv4 addresses: its InternalIPs (upstream's nodeutil.GetNodeHostIPs prefers them). */
export function primaryNodeIPs(node: Node | undefined): string[] {
  const addrs = node?.status?.addresses ?? [];
  const internal = addrs.filter((a) => a.type === 'InternalIP').map((a) => a.address);
  const external = addrs.filter((a) => a.type === 'ExternalIP').map((a) => a.address);
  return (internal.length ? internal : external).filter((a) => /^\d{1,3}(\.\d{1,3}){3}$/.test(a)).slice(0, 1);
}
