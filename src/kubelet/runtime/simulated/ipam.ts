/**
 * Addresses for simulated nodes and their pods. Node n gets the pod CIDR
 * 10.244.n.0/24 (flannel's default cluster CIDR, one /24 per node, as the
 * node IPAM controller hands out); past 256 nodes the next /16s follow
 * (10.245.x, ... 10.255.x, then 10.0.x ...), 65,536 nodes in all. Node IPs
 * come from 172.16.0.0/12. Pods get addresses from their node's /24 like
 * host-local IPAM: .1 is the gateway, allocation moves on from the last
 * address handed out so a freed IP is not reused at once.
 */

export function podCIDRForIndex(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= 65_536) throw new Error(`node index ${n} out of range for simulated pod CIDRs`);
  return `10.${(244 + (n >> 8)) & 255}.${n & 255}.0/24`;
}

export function nodeIPForIndex(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= (1 << 20) - 20) throw new Error(`node index ${n} out of range for simulated node IPs`);
  return intToIP(ipToInt('172.16.0.0') + 10 + n);
}

/** A stable index in [0, 65536) from a node name, for agents started without one. */
export function indexFromName(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) { h ^= name.charCodeAt(i); h = Math.imul(h, 16777619); }
  return (h >>> 0) & 0xffff;
}

export function ipToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`invalid IPv4 address "${ip}"`);
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

export function intToIP(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function parseCIDR(cidr: string): { base: number; bits: number } {
  const [ip, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  if (!Number.isInteger(bits) || bits < 8 || bits > 30) throw new Error(`unsupported pod CIDR "${cidr}" (IPv4 /8 to /30)`);
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return { base: (ipToInt(ip) & mask) >>> 0, bits };
}

export class IPPool {
  private readonly first: number;
  private readonly last: number;
  private readonly used = new Set<number>();
  private cursor: number;

  constructor(cidr: string) {
    const { base, bits } = parseCIDR(cidr);
    this.first = base + 2; // .0 is the network, .1 the gateway
    this.last = base + 2 ** (32 - bits) - 2; // the last one is broadcast
    this.cursor = this.last;
  }

  /** The next free address after the last one handed out, or undefined when the range is full. */
  allocate(): string | undefined {
    const size = this.last - this.first + 1;
    for (let i = 0; i < size; i++) {
      this.cursor = this.cursor >= this.last ? this.first : this.cursor + 1;
      if (!this.used.has(this.cursor)) { this.used.add(this.cursor); return intToIP(this.cursor); }
    }
    return undefined;
  }

  /** Marks an address as taken (adopting a running pod); false if it is outside the range or taken. */
  reserve(ip: string): boolean {
    const n = ipToInt(ip);
    if (n < this.first || n > this.last || this.used.has(n)) return false;
    this.used.add(n);
    return true;
  }

  release(ip: string): void { this.used.delete(ipToInt(ip)); }
  get inUse(): number { return this.used.size; }
}
