/**
 * A cluster CIDR cut into equal node subnets (upstream's
 * pkg/controller/nodeipam/ipam/cidrset): a bitmap of which subnets are taken,
 * and a rotating candidate so a subnet released by a deleted node is not the
 * very next one handed out. IPv4 and IPv6 alike, addresses as bigints.
 */
import { isIPv4 } from 'node:net';

export interface ParsedCIDR { v4: boolean; base: bigint; prefix: number }

const bitsOf = (v4: boolean) => (v4 ? 32 : 128);

function ipToBigInt(ip: string): { v4: boolean; value: bigint } | undefined {
  if (isIPv4(ip)) return { v4: true, value: ip.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n) };
  if (!ip.includes(':')) return undefined;
  const [head, tail] = ip.split('::');
  if (ip.split('::').length > 2) return undefined;
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const missing = 8 - h.length - t.length;
  if (tail === undefined ? h.length !== 8 : missing < 1) return undefined;
  const groups = [...h, ...Array(tail === undefined ? 0 : missing).fill('0'), ...t];
  if (!groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return { v4: false, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n) };
}

function bigIntToIP(value: bigint, v4: boolean): string {
  if (v4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((value >> s) & 0xffffn).toString(16));
  // The shortest form: the longest run of two or more zero groups becomes "::".
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** Parses "10.244.0.0/16" as Go's net.ParseCIDR does: the address is masked to its network. */
export function parseCIDR(cidr: string): ParsedCIDR | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr.trim());
  if (!m) return undefined;
  const ip = ipToBigInt(m[1]);
  const prefix = Number(m[2]);
  if (!ip || prefix > bitsOf(ip.v4)) return undefined;
  const hostBits = BigInt(bitsOf(ip.v4) - prefix);
  return { v4: ip.v4, base: (ip.value >> hostBits) << hostBits, prefix };
}

export const formatCIDR = (c: ParsedCIDR) => `${bigIntToIP(c.base, c.v4)}/${c.prefix}`;

export class CIDRSet {
  private readonly cluster: ParsedCIDR;
  private readonly used: Uint8Array;
  private readonly maxCIDRs: number;
  private nextCandidate = 0;
  private allocated = 0;

  constructor(clusterCIDR: string, readonly nodeMaskSize: number) {
    const c = parseCIDR(clusterCIDR);
    if (!c) throw new Error(`invalid CIDR address: ${clusterCIDR}`);
    if (nodeMaskSize < c.prefix || nodeMaskSize > bitsOf(c.v4)) {
      throw new Error(`the node CIDR mask size ${nodeMaskSize} does not fit in the cluster CIDR ${formatCIDR(c)}`);
    }
    // Upstream refuses more than 2^16 subnets (clusterSubNetMaskSize - clusterMaskSize > 16): the bitmap stays small.
    if (nodeMaskSize - c.prefix > 16) {
      throw new Error(`a node CIDR mask size of ${nodeMaskSize} cuts the cluster CIDR ${formatCIDR(c)} into more than 65536 subnets; use a larger mask size difference of at most 16`);
    }
    this.cluster = c;
    this.maxCIDRs = 2 ** (nodeMaskSize - c.prefix);
    this.used = new Uint8Array(this.maxCIDRs);
  }

  get isIPv4(): boolean { return this.cluster.v4; }
  get free(): number { return this.maxCIDRs - this.allocated; }

  private subnet(index: number): string {
    const shift = BigInt(bitsOf(this.cluster.v4) - this.nodeMaskSize);
    return formatCIDR({ v4: this.cluster.v4, base: this.cluster.base + (BigInt(index) << shift), prefix: this.nodeMaskSize });
  }

  /** The next free node subnet, or undefined when every one is taken. */
  allocateNext(): string | undefined {
    if (this.allocated === this.maxCIDRs) return undefined;
    for (let i = 0; i < this.maxCIDRs; i++) {
      const index = (this.nextCandidate + i) % this.maxCIDRs;
      if (this.used[index]) continue;
      this.used[index] = 1;
      this.allocated++;
      this.nextCandidate = (index + 1) % this.maxCIDRs;
      return this.subnet(index);
    }
    return undefined;
  }

  /** The subnet indexes a CIDR covers, or an error when it lies outside the cluster CIDR. */
  private indexes(cidr: string): { begin: number; end: number } | string {
    const c = parseCIDR(cidr);
    if (!c || c.v4 !== this.cluster.v4) return `invalid CIDR for this cluster CIDR's family: ${cidr}`;
    const clusterHost = BigInt(bitsOf(c.v4) - this.cluster.prefix);
    const within = (c.base >> clusterHost) === (this.cluster.base >> clusterHost) && c.prefix >= this.cluster.prefix;
    if (!within) return `cidr ${cidr} is out the range of cluster cidr ${formatCIDR(this.cluster)}`;
    const shift = BigInt(bitsOf(c.v4) - this.nodeMaskSize);
    const offset = c.base - this.cluster.base;
    const begin = Number(offset >> shift);
    // A CIDR wider than a node subnet covers several; a narrower one sits inside one.
    const span = c.prefix >= this.nodeMaskSize ? 1 : 2 ** (this.nodeMaskSize - c.prefix);
    return { begin, end: begin + span - 1 };
  }

  /** Marks a CIDR a node already has as taken; an error string when it is outside the cluster CIDR. */
  occupy(cidr: string): string | undefined {
    const r = this.indexes(cidr);
    if (typeof r === 'string') return r;
    for (let i = r.begin; i <= r.end; i++) if (!this.used[i]) { this.used[i] = 1; this.allocated++; }
    return undefined;
  }

  release(cidr: string): string | undefined {
    const r = this.indexes(cidr);
    if (typeof r === 'string') return r;
    for (let i = r.begin; i <= r.end; i++) if (this.used[i]) { this.used[i] = 0; this.allocated--; }
    return undefined;
  }
}
