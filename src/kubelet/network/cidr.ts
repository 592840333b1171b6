/**
 * IPv4 CIDR arithmetic for the pod network: the bridge's gateway address
 * (the subnet's first host, as the CNI bridge plugin picks with isGateway),
 * a VXLAN endpoint address (the subnet's network address, as flannel gives
 * its flannel.1 device) and membership tests for host-local's files.
 */
export interface IPv4CIDR { network: number; prefix: number }

export function parseIPv4(s: string): number | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}

export const formatIPv4 = (n: number): string => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');

const maskOf = (prefix: number): number => (prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);

/** "10.244.1.0/24" → its network and prefix; undefined for anything else (IPv6 included: the pod network is IPv4 only). */
export function parseIPv4CIDR(s: string): IPv4CIDR | undefined {
  const m = /^([0-9.]+)\/(\d{1,2})$/.exec(s.trim());
  if (!m) return undefined;
  const ip = parseIPv4(m[1]!);
  const prefix = Number(m[2]);
  if (ip === undefined || prefix > 32) return undefined;
  return { network: (ip & maskOf(prefix)) >>> 0, prefix };
}

export const cidrContains = (c: IPv4CIDR, ip: number): boolean => ((ip & maskOf(c.prefix)) >>> 0) === c.network;
export const formatCIDR = (c: IPv4CIDR): string => `${formatIPv4(c.network)}/${c.prefix}`;
/** The bridge's address: the subnet's first host. */
export const gatewayOf = (c: IPv4CIDR): string => formatIPv4(c.network + 1);
/** A node's VXLAN endpoint address: its pod subnet's network address (flannel's choice), so it never collides with a pod. */
export const vtepAddressOf = (c: IPv4CIDR): string => formatIPv4(c.network);
