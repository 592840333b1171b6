/**
 * kube-controller-manager's node IPAM flags, shared by `k8ts server` and
 * `k8ts controller-manager`: --allocate-node-cidrs, --cluster-cidr,
 * --node-cidr-mask-size, --node-cidr-mask-size-ipv4|-ipv6. Checked at start,
 * so a bad value stops the process with the reason rather than leaving
 * nodes without pod CIDRs.
 */
import type { ControllerConfig } from '../controllers/types.js';
import { clusterCIDRSets } from '../controllers/nodeipam/index.js';

export const nodeCIDRFlagOptions = {
  'allocate-node-cidrs': { type: 'string', default: 'false' }, 'cluster-cidr': { type: 'string' },
  'node-cidr-mask-size': { type: 'string' }, 'node-cidr-mask-size-ipv4': { type: 'string' }, 'node-cidr-mask-size-ipv6': { type: 'string' },
} as const;

/** A bare boolean flag means true, as Go's pflag has it (`--allocate-node-cidrs` = `--allocate-node-cidrs=true`). */
export function bareBoolFlags(args: string[], names: string[]): string[] {
  return args.map((a) => (names.includes(a.replace(/^--/, '')) && a.startsWith('--') ? `${a}=true` : a));
}

/** strconv.ParseBool. */
function parseGoBool(flag: string, v: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw new Error(`invalid argument "${v}" for "--${flag}" flag: strconv.ParseBool: parsing "${v}": invalid syntax`);
}

function parseMask(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new Error(`invalid argument "${v}" for "--${flag}" flag: strconv.ParseInt: parsing "${v}": invalid syntax`);
  return Number(v);
}

export function nodeCIDRConfig(values: Record<string, string | boolean | undefined>): Partial<ControllerConfig> {
  const str = (k: string) => (typeof values[k] === 'string' ? values[k] as string : undefined);
  const allocate = parseGoBool('allocate-node-cidrs', str('allocate-node-cidrs') ?? 'false');
  const clusterCIDRs = (str('cluster-cidr') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const single = parseMask('node-cidr-mask-size', str('node-cidr-mask-size'));
  const v4 = parseMask('node-cidr-mask-size-ipv4', str('node-cidr-mask-size-ipv4')) ?? single ?? 24;
  const v6 = parseMask('node-cidr-mask-size-ipv6', str('node-cidr-mask-size-ipv6')) ?? single ?? 64;
  if (!allocate) return { allocateNodeCIDRs: false, clusterCIDRs };
  if (clusterCIDRs.length === 0) throw new Error('--cluster-cidr must be set when --allocate-node-cidrs=true');
  if (clusterCIDRs.length > 2) throw new Error('at most two cluster CIDRs (one per IP family) may be given in --cluster-cidr');
  // Builds the sets once to check every CIDR and mask size now; the controller builds its own.
  const sets = clusterCIDRSets(clusterCIDRs, v4, v6);
  if (sets.length === 2 && sets[0].isIPv4 === sets[1].isIPv4) throw new Error('--cluster-cidr: a dual-stack configuration needs one IPv4 and one IPv6 CIDR');
  return { allocateNodeCIDRs: true, clusterCIDRs, nodeCIDRMaskSizeIPv4: v4, nodeCIDRMaskSizeIPv6: v6 };
}

/** nodeCIDRConfig for a command's start: a bad flag is printed as the error and gives undefined (exit 1). */
export function nodeCIDRConfigOrReport(values: Record<string, string | boolean | undefined>): Partial<ControllerConfig> | undefined {
  try {
    return nodeCIDRConfig(values);
  } catch (e) {
    console.error(`Error: ${(e as Error).message}`);
    return undefined;
  }
}
